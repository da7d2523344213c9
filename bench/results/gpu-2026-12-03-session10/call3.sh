#!/usr/bin/env bash
# Session 10, device call 3 (commit 1e6785c): the incremental table again at today's defaults (filling
# off, cheap claims): RMAT-20 and RMAT-22, batches of 1,000 and 10^4 inserts, then RMAT-20 with 10%
# deletions; GPU matching + update against the CPU engine on the host's 16 threads over the same
# tasks, the house with a 10 s budget per batch; then the sharing thresholds once more on RMAT-22.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DM_COMMIT=$(cat .commit)
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
s=$(date +%s)
timeout 260 python3 bench/gpu/bench_gpu.py --out $OUT/inserts --scales 20,22 --sizes 1000,10000 --batches 2 \
    --patterns 4-cycle,diamond,4-clique,house --ablation "" --no-counters --batch-budget 10 --static-budget 3 \
    --cpu-limit 30 --cpu-when-gpu-under 12 --no-relabel --no-static --time-budget 240 > $OUT/bench-inserts.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-inserts.log
s=$(date +%s)
timeout 150 python3 bench/gpu/bench_gpu.py --out $OUT/deletes --scales 20 --sizes 1000,10000 --batches 2 \
    --delete-fraction 0.1 --patterns 4-cycle,diamond,4-clique --ablation "" --no-counters --batch-budget 5 \
    --static-budget 3 --cpu-limit 20 --cpu-when-gpu-under 6 --no-relabel --no-static --time-budget 130 > $OUT/bench-deletes.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-deletes.log
grep -E "^RMAT|  batch|summary|^  (20|22) |rc|MISMATCH|recount" $OUT/bench-inserts.log $OUT/bench-deletes.log | cut -c1-190 | head -90
timeout 90 python3 bench/gpu/balance_sweep.py --scale 22 --batch 1000 --batches 2 --repeats 3 \
  --settings "share512:share_pairs=512;share8k:share_pairs=8192;defer512:defer_cost=512;defer8k:defer_cost=8192" > $OUT/sweep-22.log 2>&1
echo "sweep rc $?" >> $OUT/sweep-22.log; grep -v "^batch" $OUT/sweep-22.log
