#!/usr/bin/env bash
# Session 29, device call 4: the new count path at 10^4 with 10% deletions (RMAT-20; the 4-cycle,
# diamond and 4-clique; three batches a cell, GPU only), against session 28's call 2 (same card
# kind, same batches): no regression at the larger size.
set -u
t0=$(date +%s)
timeout 110 python3 bench/gpu/bench_gpu.py --out $OUT/deletions --ablation "" --no-counters --no-relabel \
  --no-static --no-cpu --scales 20 --sizes 10000 --batches 3 --delete-fraction 0.1 \
  --patterns 4-cycle,diamond,4-clique --batch-budget 10 --time-budget 100 > $OUT/bench-deletions.log 2>&1
echo "bench rc $? at $(( $(date +%s) - t0 )) s"
grep -A8 "^summary" $OUT/bench-deletions.log | cut -c1-160
