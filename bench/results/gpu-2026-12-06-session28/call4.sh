#!/usr/bin/env bash
# Session 28, device call 4: under the unroll_min_k rule the 4-vertex patterns run split alone; at
# 1,000 a count is host-bound (timeline: 1.5 ms of wall for 0.43 ms of device time, the chunking of
# deferred sets 0.6 ms of it).  Does deferring less (or not at all) pay at 1,000 and cost at 10^4?
set -u
t0=$(date +%s)
S="nosplit:split=0;defer8k:defer_cost=8192;defer32k:defer_cost=32768;share16:AUTO_CHUNK_SHARE=16"
for run in "20 1000 2 4-clique,diamond,4-cycle 60" "22 1000 2 4-clique,diamond,4-cycle 70" "20 10000 1 4-clique,diamond,4-cycle 60"; do
  set -- $run
  timeout $5 python3 -u bench/gpu/balance_sweep.py --scale $1 --batch $2 --batches $3 --repeats 3 \
    --patterns $4 --settings "$S" > $OUT/sweep-defer-$1-$2.log 2>&1
  echo "== rmat:$1 batch $2: rc $? at $(( $(date +%s) - t0 )) s"
  grep -v "^batch" $OUT/sweep-defer-$1-$2.log
done
