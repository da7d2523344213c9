#!/usr/bin/env bash
# Session 35, call 3: each task of an RMAT-20 batch of 1,000 insertions counted alone
# (bench/gpu/task_times.py), for the 4-clique under the default switches and without seed swap:
# which seeds make phase 0's slowest warp.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
for b in all noswap; do
  timeout 150 python3 bench/gpu/task_times.py --pattern 4-clique --balance $b --out $OUT/tasks-4clique-$b.csv \
    > $OUT/tasks-4clique-$b.log 2>&1
  echo "tasks $b rc $? at $(elapsed) s"; cut -c1-400 $OUT/tasks-4clique-$b.log | tail -32
done
