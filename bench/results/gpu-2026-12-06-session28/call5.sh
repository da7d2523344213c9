#!/usr/bin/env bash
# Session 28, device call 5: PGMiner's ablation with the kernel's counters at the new defaults
# (all: 4-vertex patterns split alone, unroll_min_k 5) beside allk4 (every mechanism at every k).
set -u
t0=$(date +%s)
timeout 250 python3 bench/gpu/bench_gpu.py --out $OUT/ablation --scales 20 --sizes 1000,10000 --batches 1 \
  --patterns 4-clique,diamond,4-cycle --ablation none,split,unroll,allk4 --counters --batch-budget 10 --static-budget 1 \
  --no-cpu --no-static --no-relabel --time-budget 230 > $OUT/bench-ablation.log 2>&1
echo "ablation rc $? at $(( $(date +%s) - t0 )) s"
grep -E "^  batch|^summary" $OUT/bench-ablation.log | cut -c1-200 | head -60
