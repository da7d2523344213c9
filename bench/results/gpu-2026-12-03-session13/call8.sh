#!/usr/bin/env bash
# Session 13, call 8 (AUTO_CHUNK_SHARE = 64): the kernel's own counters (lanes per instruction,
# per-warp busy max/min and p99/median) on RMAT-20 batches of 1,000, 4-clique and 4-cycle (#19).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DM_COMMIT=$(cat .commit)
{ date -u; echo "commit $(cat .commit)"; } > $OUT/device.txt
timeout 140 python3 bench/gpu/bench_gpu.py --out $OUT/counters --scales 20 --sizes 1000 --batches 2 \
    --patterns 4-clique,4-cycle,diamond --ablation "" --counters --batch-budget 10 --static-budget 1 --no-cpu \
    --no-relabel --no-static --time-budget 130 > $OUT/bench-counters.log 2>&1
echo "rc $?" >> $OUT/bench-counters.log
grep -E "batch|rc" $OUT/bench-counters.log | cut -c1-260
