#!/usr/bin/env bash
# Session 38, call 1.  Carry [".devbundle", ".commit"].  The match kernels' registers cut (the warp's
# clock, match sum and task id kept in its shared state, statistics compiled out where no build
# reads them): every engine GPU test on it, then session 37's next.sh (four blocks an SM now
# launched at its own size: its tests, whole new batches with 3 and 4 blocks each in a process of
# its own, the 4-clique's recount ratio).
set -u
timeout 240 python3 bench/gpu/compile_builds.py > $L/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $L/compile.log
timeout 230 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py \
  > $L/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(elapsed) s"; tail -2 $L/gpu-tests-engine.log; grep -E "^FAILED" $L/gpu-tests-engine.log | head
for balance in all blocks4; do
  timeout 45 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
    --patterns 4-clique,4-cycle --ab-reps 3 --pipeline 20 --pipeline-fresh --pipeline-balances $balance \
    > $L/timeline-fresh-$balance.log 2>&1
  echo "timeline $balance rc $? at $(elapsed) s"; grep -A6 "^pipeline" $L/timeline-fresh-$balance.log
done
[ "$(elapsed)" -lt 520 ] && timeout 70 python3 bench/gpu/bench_gpu.py --out $L/bench-4clique --ablation "" \
  --no-relabel --no-counters --no-static --sizes 1000 --batch-budget 20 --time-budget 60 --delete-fraction 0.1 \
  --no-kept-triangles --scales 20 --batches 3 --patterns 4-clique --pipelined > $L/bench-4clique.log 2>&1
echo "bench rc $? at $(elapsed) s"; grep -A3 "^summary" $L/bench-4clique.log | cut -c1-220
