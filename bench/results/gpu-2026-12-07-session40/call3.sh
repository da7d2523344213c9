#!/usr/bin/env bash
# Session 40's call 3, not run (no device time left): the next session's first call.  Carry
# [".devbundle", ".commit", ".numba-cache.tgz"]; DEADLINE (s, default 580).
# Call 2 ran the batch tests of DM_RANKED_TOUCHED (the default since session 40: 237 passed); this
# runs every engine GPU test under it (static counts, every balance's parity cases, the launch-size
# tests), then new joint batches under the default and warps36 (36 warps an SM, spilling: warps
# active 52-55% in call 1, one joint reading 5.79 against 6.97 ms), two rounds in turn, to decide
# whether 36 should be the default.
set -u
D=${DEADLINE:-580}
timeout 200 python3 bench/gpu/compile_builds.py > $L/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $L/compile.log
timeout $((D - 110 - $(elapsed))) python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short \
  tests/kernels/test_cuda_engine.py > $L/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(elapsed) s"; tail -2 $L/gpu-tests-engine.log; grep -E "^FAILED" $L/gpu-tests-engine.log | head
for balance in all warps36 warps36 all; do
  [ "$(elapsed)" -lt $((D - 25)) ] && timeout 25 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 \
    --delete-fraction 0.1 --joint --patterns 4-clique,4-cycle --ab-reps 3 --pipeline 20 --pipeline-fresh \
    --pipeline-balances $balance >> $L/timeline-joint-$balance.log 2>&1
  echo "timeline $balance rc $? at $(elapsed) s"; grep -A1 "^pipeline" $L/timeline-joint-$balance.log | tail -2
done
true
