#!/usr/bin/env bash
# Session 13, device call 1 (commit in .commit): where the RMAT-20 4-cycle batch of 1,000 spends
# the ~3.4 ms outside its kernels (timeline.py: kernels, gaps, cProfile of the host), and the
# bench's warm-up (session 12, untested): no first timed batch or recount may carry a compile.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DM_COMMIT=$(cat .commit)
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
s=$(date +%s)
timeout 200 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 4 --patterns 4-cycle,4-clique \
    --host-profile 5 --top 16 > $OUT/timeline.log 2>&1
echo "timeline rc $? after $(($(date +%s) - s)) s" >> $OUT/timeline.log
cut -c1-170 $OUT/timeline.log | grep -v "^  *[0-9]* *0.000 *0.000" | head -120
s=$(date +%s)
timeout 200 python3 bench/gpu/bench_gpu.py --out $OUT/warm --scales 20 --sizes 1000 --batches 3 \
    --patterns 4-cycle,diamond,4-clique --ablation "" --no-counters --batch-budget 10 --static-budget 3 \
    --cpu-limit 30 --cpu-when-gpu-under 12 --no-relabel --no-static --time-budget 190 > $OUT/bench-warm.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-warm.log
grep -vE "^\{" $OUT/bench-warm.log | cut -c1-200 | head -60
