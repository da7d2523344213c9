#!/usr/bin/env bash
# Session 11, device call 1 (commit 684fb15): every GPU test at the last commit (kernels, device
# graph with the kept hub bitmaps, replicas, routing, warm-up, the RMAT generator, the API), then
# Nsight Compute on one batch of 1,000 inserts at today's defaults (RMAT-20: 4-cycle, diamond, 4-clique).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DM_COMMIT=$(cat .commit)
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
s=$(date +%s)
timeout 390 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf tests/kernels/test_cuda_engine.py \
  tests/workers/test_cuda_backend.py tests/scheduler/test_warmup.py tests/bench/test_rmat.py tests/test_api.py > $OUT/gpu-tests.log 2>&1
echo "pytest rc $? after $(($(date +%s) - s)) s" >> $OUT/gpu-tests.log
grep -E "FAILED|ERROR" $OUT/gpu-tests.log | head -20; tail -3 $OUT/gpu-tests.log
M=gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum
timeout 150 ncu --clock-control none --kernel-name regex:match_ --metrics $M python3 bench/gpu/ncu_batch.py --scale 20 --size 1000 \
  --patterns 4-cycle,diamond,4-clique --balances all > $OUT/ncu-20.log 2>&1; echo "ncu rc $?" >> $OUT/ncu-20.log
grep -E "match_|gpu__time|grid_size|registers|warps_active|thread_inst|hit_rate|throughput|inst_executed|rc|matches|balance" $OUT/ncu-20.log | head -80
