#!/usr/bin/env bash
# Session 34, on call 1's warm machine with the 87 s left: seed pieces on once more, after the run
# without them (call 1 ran pieces first, on a cold machine: its updates read 1.15 ms against 0.84).
set -u
timeout 60 python3 bench/gpu/bench_gpu.py --out $OUT/bench-pieces2 --ablation "" --no-relabel --no-counters \
  --no-static --no-cpu --sizes 1000 --batch-budget 10 --time-budget 45 --delete-fraction 0.1 \
  --no-kept-triangles --scales 20 --batches 4 --patterns 4-clique,4-cycle --balance pieces > $OUT/bench-pieces2.log 2>&1
echo "rc $?"; grep -A4 "^summary" $OUT/bench-pieces2.log | cut -c1-120
