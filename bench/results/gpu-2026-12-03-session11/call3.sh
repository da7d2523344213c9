#!/usr/bin/env bash
# Session 11, device call 3 (commit in .commit): the house, where both engines finish. RMAT-16 and
# RMAT-18, batches of 1,000 inserts, GPU against the CPU engine on the host's 16 threads over the same
# tasks (30 s GPU budget, CPU runs up to 120 s), the recount beside them; then one RMAT-20 batch with a
# 100 s GPU budget and no CPU run, to learn how long it takes.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DM_COMMIT=$(cat .commit)
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
s=$(date +%s)
timeout 250 python3 bench/gpu/bench_gpu.py --out $OUT/small --scales 16,18 --sizes 1000 --batches 2 \
    --patterns house --ablation "" --no-counters --batch-budget 30 --static-budget 20 \
    --cpu-limit 120 --cpu-when-gpu-under 30 --no-relabel --no-static --time-budget 200 > $OUT/bench-small.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-small.log
grep -vE "^\{" $OUT/bench-small.log | cut -c1-200 | head -30
s=$(date +%s)
timeout 150 python3 bench/gpu/bench_gpu.py --out $OUT/rmat20 --scales 20 --sizes 1000 --batches 1 \
    --patterns house --ablation "" --no-counters --batch-budget 100 --static-budget 1 --no-cpu \
    --no-relabel --no-static --time-budget 140 > $OUT/bench-20.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-20.log
grep -vE "^\{" $OUT/bench-20.log | cut -c1-200 | head -20
