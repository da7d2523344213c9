#!/usr/bin/env bash
# Session 38, call 1.  Carry [".devbundle", ".commit"].  The match kernels' registers cut (the warp's
# clock, match sum and task id kept in its shared state, statistics compiled out where no build
# reads them) and Balance.warps_per_sm (24 default; 28, blocks of 4 warps at 72 registers, no spills;
# 32, 64 registers, spills): every build compiled, every engine GPU test (the launch-size test and
# the 28 and 32 parity cases among them), then whole new batches under each, each in a process of
# its own (their scratch sizes differ: interleaved, CuPy's pool would serve one with the other's).
set -u
timeout 250 python3 bench/gpu/compile_builds.py > $L/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $L/compile.log
timeout 230 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py \
  > $L/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(elapsed) s"; tail -2 $L/gpu-tests-engine.log; grep -E "^FAILED" $L/gpu-tests-engine.log | head
for balance in all warps28 warps32; do
  [ "$(elapsed)" -lt 550 ] && timeout 40 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 \
    --delete-fraction 0.1 --joint --patterns 4-clique,4-cycle --ab-reps 3 --pipeline 20 --pipeline-fresh \
    --pipeline-balances $balance > $L/timeline-fresh-$balance.log 2>&1
  echo "timeline $balance rc $? at $(elapsed) s"; grep -A6 "^pipeline" $L/timeline-fresh-$balance.log
done
