#!/usr/bin/env bash
# Session 29, device call 3: issue 13's recount ratio at 1,000 (RMAT-20 and RMAT-22, the 4-clique and
# the diamond, inserts and 10% deletions, five batches a cell, GPU only) at HEAD (old/) and with
# this session's host path (chunks in fixed slots, pinned uploads), one after the other.
set -u
t0=$(date +%s)
for dels in 0 0.1; do
  for tree in old new; do
    dir=.; [ $tree = old ] && dir=old
    timeout 110 python3 $dir/bench/gpu/bench_gpu.py --out $OUT/bench-$tree-$dels --ablation "" --no-counters --no-relabel \
      --no-static --no-cpu --scales 20,22 --sizes 1000 --batches 5 --delete-fraction $dels --patterns diamond,4-clique \
      --batch-budget 10 --time-budget 100 > $OUT/bench-$tree-$dels.log 2>&1
    echo "bench $tree dels $dels rc $? at $(( $(date +%s) - t0 )) s"
    grep -A8 "^summary" $OUT/bench-$tree-$dels.log | cut -c1-160
  done
done
