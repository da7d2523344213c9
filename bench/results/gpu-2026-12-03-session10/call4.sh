#!/usr/bin/env bash
# Session 10, device call 4 (commit 1e6785c): Nsight Compute on one batch of 1,000 inserts at today's
# defaults (RMAT-20: 4-cycle, diamond, 4-clique), then PGMiner's ablation with the kernel's counters
# (lanes, per-warp busy spread) on RMAT-20, batches of 1,000 and 10^4.  (Its first try, which also
# profiled RMAT-22, lost its machine before it finished.)
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DM_COMMIT=$(cat .commit)
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
M=gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__inst_executed.sum
timeout 150 ncu --clock-control none --kernel-name regex:match_ --metrics $M python3 bench/gpu/ncu_batch.py --scale 20 --size 1000 \
  --patterns 4-cycle,diamond,4-clique --balances all > $OUT/ncu-20.log 2>&1; echo "ncu rc $?" >> $OUT/ncu-20.log
for f in ncu-20; do grep -E "match_|gpu__time|grid_size|registers|warps_active|thread_inst|hit_rate|throughput|stalled|inst_executed|rc|matches|balance" $OUT/$f.log | head -70; done
timeout 150 python3 bench/gpu/bench_gpu.py --out $OUT/ablation --scales 20 --sizes 1000,10000 --batches 1 \
  --patterns 4-cycle,diamond,4-clique --ablation none,split,unroll --batch-budget 5 --static-budget 2 --no-cpu \
  --no-relabel --no-static --time-budget 130 > $OUT/ablation.log 2>&1; echo "bench rc $?" >> $OUT/ablation.log
grep -E "  batch|rc" $OUT/ablation.log | cut -c1-230
