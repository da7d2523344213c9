#!/usr/bin/env bash
# Session 8, device call 4: issue 16's part (c) alone on the machine (call 3 ran it beside four
# RapidFlow comparisons), then Nsight Compute of the 4-cycle's and diamond's batch launches
# (RMAT-20, 1,000 inserts, the service's build) with the pair loop's window and without it.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
timeout 380 python3 bench/gpu/service_latency.py --out $OUT --backend cuda --parts c --batches-c 8 --time-budget 350 > $OUT/service-latency.log 2>&1; echo "latency rc $?" >> $OUT/service-latency.log
timeout 150 ncu --clock-control none --kernel-name regex:match_ --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__inst_executed.sum python3 bench/gpu/ncu_batch.py --scale 20 --size 1000 --patterns 4-cycle,diamond --balances all,nowindow > $OUT/ncu-batch.log 2>&1; echo "ncu rc $?" >> $OUT/ncu-batch.log
head -2 $OUT/device.txt
grep -vE "^\s*$" $OUT/service-latency.log | grep -E "ready|measured|^\(c\)|^\| |thresholds|rows|rc|FAIL|stopped" | head -30
grep -E "match_|gpu__time|grid_size|registers|warps_active|thread_inst|hit_rate|stalled|inst_executed|rc|matches|balance" $OUT/ncu-batch.log | head -60
