#!/usr/bin/env bash
# Session 5, device call 1: service e2e at 24feb45 (launch_shape under the pool limit), Nsight
# Compute of the static-count launches and of the batch launches at 80 registers.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data DM_COMMIT=24feb45
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; } > $OUT/device.txt
timeout 150 python3 bench/gpu/service_e2e.py > $OUT/service-e2e.log 2>&1; echo "e2e rc $?" >> $OUT/service-e2e.log
SEC="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section SourceCounters --metrics smsp__thread_inst_executed_per_inst_executed.ratio,sm__warps_active.avg.pct_of_peak_sustained_active"
timeout 100 ncu --clock-control none --kernel-name regex:match_ $SEC python3 bench/gpu/static_bench.py --out $OUT/s1 --graphs wiki-Vote --patterns triangle,4-clique,diamond,4-cycle --repeats 1 --ablation "" > $OUT/ncu-static-wiki.log 2>&1
timeout 200 ncu --clock-control none --kernel-name regex:match_ --launch-count 8 $SEC python3 bench/gpu/static_bench.py --out $OUT/s2 --graphs rmat:20 --patterns triangle,4-clique,diamond --repeats 1 --ablation "" > $OUT/ncu-static-rmat.log 2>&1
timeout 120 ncu --clock-control none --kernel-name regex:match_ --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio python3 bench/gpu/ncu_batch.py --scale 20 --size 1000 --patterns 4-clique,diamond,4-cycle --balances all,unroll > $OUT/ncu-batch.log 2>&1
ls -la $OUT
