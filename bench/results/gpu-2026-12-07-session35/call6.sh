#!/usr/bin/env bash
# Session 35, call 6: pieces from degree 1,024 against none, each batch timed as a whole
# (--pipelined) and step-timed, 4-clique and matched diamond, RMAT-20 1,000 with 10% deletions.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
for b in pieces1024 all pieces1024 all; do
  tag=$b-$(elapsed)
  timeout 60 python3 bench/gpu/bench_gpu.py --out $OUT/bench-pipe-$tag --ablation "" --no-relabel \
    --no-static --no-cpu --sizes 1000 --batch-budget 10 --time-budget 50 --delete-fraction 0.1 \
    --no-kept-triangles --scales 20 --batches 6 --patterns 4-clique --balance $b --pipelined --no-counters \
    > $OUT/bench-pipe-$tag.log 2>&1
  echo "bench $b rc $? at $(elapsed) s"
done
grep -A2 "^summary" $OUT/bench-pipe-*.log | cut -c1-200
