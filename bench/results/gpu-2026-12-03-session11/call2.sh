#!/usr/bin/env bash
# Session 11, device call 2 (commit in .commit): the incremental table at today's defaults (hub bitmaps
# kept, ~13 GB budget; the diamond also counted from kept triangles): RMAT-20 and RMAT-22, batches of
# 1,000 and 10^4 inserts, then RMAT-20 with 10% deletions, GPU against the CPU engine on the host's 16
# threads over the same tasks, the house with a 10 s budget per batch; then Nsight Compute on one
# batch of 1,000 inserts at the defaults (RMAT-20: 4-cycle, diamond, 4-clique).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DM_COMMIT=$(cat .commit)
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
s=$(date +%s)
timeout 230 python3 bench/gpu/bench_gpu.py --out $OUT/inserts --scales 20,22 --sizes 1000,10000 --batches 2 \
    --patterns 4-cycle,diamond,4-clique,house --ablation "" --no-counters --batch-budget 10 --static-budget 3 \
    --cpu-limit 30 --cpu-when-gpu-under 12 --no-relabel --no-static --time-budget 210 > $OUT/bench-inserts.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-inserts.log
s=$(date +%s)
timeout 130 python3 bench/gpu/bench_gpu.py --out $OUT/deletes --scales 20 --sizes 1000,10000 --batches 2 \
    --delete-fraction 0.1 --patterns 4-cycle,diamond,4-clique --ablation "" --no-counters --batch-budget 5 \
    --static-budget 3 --cpu-limit 20 --cpu-when-gpu-under 6 --no-relabel --no-static --time-budget 110 > $OUT/bench-deletes.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-deletes.log
grep -E "^RMAT|kept|summary|^  (20|22) |rc|MISMATCH|recount" $OUT/bench-inserts.log $OUT/bench-deletes.log | cut -c1-200 | head -80
M=gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed
timeout 140 ncu --clock-control none --kernel-name regex:match_ --metrics $M python3 bench/gpu/ncu_batch.py --scale 20 --size 1000 \
  --patterns 4-cycle,diamond,4-clique --balances all > $OUT/ncu-20.log 2>&1; echo "ncu rc $?" >> $OUT/ncu-20.log
grep -E "match_|gpu__time|grid_size|registers|warps_active|thread_inst|throughput|rc|balance" $OUT/ncu-20.log | head -60
