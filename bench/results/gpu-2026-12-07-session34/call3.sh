#!/usr/bin/env bash
# Session 34, call 1's warm machine, the last 58 s: the 4-clique's batches also timed as a whole
# (--pipelined), then seed pieces with the kernel's counters (is any task pieced?).
set -u
timeout 25 python3 bench/gpu/bench_gpu.py --out $OUT/bench-pipelined --ablation "" --no-relabel --no-counters \
  --no-static --no-cpu --sizes 1000 --batch-budget 10 --time-budget 18 --delete-fraction 0.1 \
  --no-kept-triangles --scales 20 --batches 4 --patterns 4-clique --pipelined > $OUT/bench-pipelined.log 2>&1
echo "rc $?"; grep -E "^  batch" $OUT/bench-pipelined.log | cut -c60-220; grep -A3 "^summary" $OUT/bench-pipelined.log | cut -c1-160
timeout 18 python3 bench/gpu/bench_gpu.py --out $OUT/bench-pieces-counters --ablation "" --no-relabel \
  --no-static --no-cpu --sizes 1000 --batch-budget 10 --time-budget 12 --delete-fraction 0.1 \
  --no-kept-triangles --scales 20 --batches 2 --patterns 4-clique --balance pieces > $OUT/bench-pieces-counters.log 2>&1
echo "rc $?"; grep -E "^  batch" $OUT/bench-pieces-counters.log | cut -c100-400
