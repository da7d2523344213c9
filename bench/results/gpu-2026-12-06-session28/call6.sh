#!/usr/bin/env bash
# Session 28, device call 6: issue 19's Nsight Compute figures at the new defaults (all: 4-vertex
# patterns split alone, match_tasks) beside allk4 (unrolled and stolen, match_shared), RMAT-20
# batches of 1,000 and 10^4: each match launch's time, grid, registers, warps active and lanes per
# executed instruction.
set -u
t0=$(date +%s)
M=gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__thread_inst_executed_pred_on_per_inst_executed.ratio
for size in 1000 10000; do
  timeout 150 ncu --clock-control none --kernel-name regex:match_ --metrics $M python3 bench/gpu/ncu_batch.py --scale 20 --size $size \
    --patterns 4-clique,diamond,4-cycle --balances all,allk4 > $OUT/ncu-$size.log 2>&1
  echo "ncu $size rc $? at $(( $(date +%s) - t0 )) s"
  grep -E "^(4-|diamond)|match_|duration|grid_size|registers|warps_active|thread_inst" $OUT/ncu-$size.log | sed -E 's/ +/ /g' | cut -c1-150
done
