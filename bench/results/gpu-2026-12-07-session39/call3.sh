#!/usr/bin/env bash
# Session 39, call 3.  Carry [".devbundle", ".commit", ".numba-cache.tgz"]; DEADLINE (s, default 580).
# 28 warps an SM is the default now (match_body.cuh's defaults changed, so every match build is
# compiled again): every build compiled, then every engine GPU test (the default's parity under
# every switch, the 24 and 32 parity cases, the launch-size tests), then new joint RMAT-20 batches
# under the default and warps24, each in a process of its own, in the time left.
set -u
D=${DEADLINE:-580}
timeout 250 python3 bench/gpu/compile_builds.py > $L/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $L/compile.log
timeout $((D - 60 - $(elapsed))) python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short \
  tests/kernels/test_cuda_engine.py > $L/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(elapsed) s"; tail -2 $L/gpu-tests-engine.log; grep -E "^FAILED" $L/gpu-tests-engine.log | head
fresh() {
  timeout 30 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 \
    --delete-fraction 0.1 --joint --patterns 4-clique,4-cycle --ab-reps 3 --pipeline 20 --pipeline-fresh \
    --pipeline-balances $1 > $L/timeline-fresh-$1.log 2>&1
  echo "timeline $1 rc $? at $(elapsed) s"; grep -A6 "^pipeline" $L/timeline-fresh-$1.log
}
[ "$(elapsed)" -lt $((D - 30)) ] && fresh all
[ "$(elapsed)" -lt $((D - 30)) ] && fresh warps24
true
