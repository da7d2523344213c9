#!/usr/bin/env bash
# Session 15, device call 2 (device-check.sh's "script" step, then its "tests" step): the batch's
# pair table (DM_PAIR_HASH) and a pair list's checks made once (DM_LIST_CHECKS), each switched off
# beside the default on the same RMAT-20 batches of 1,000 and 10^4 inserts.
s=$(date +%s)
timeout 230 python3 bench/gpu/bench_gpu.py --out $OUT/ablation --scales 20 --sizes 1000,10000 --batches 2 --patterns 4-cycle,4-clique,diamond --ablation nopairhash,nolistchecks --no-counters --no-cpu --batch-budget 10 --static-budget 3 --no-relabel --no-static --time-budget 210 > $OUT/bench-ablation.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-ablation.log
grep -A40 "^summary" $OUT/bench-ablation.log | cut -c1-200; grep -c MISMATCH $OUT/bench-ablation.log
