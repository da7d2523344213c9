#!/usr/bin/env bash
# Session 36, call 2: issue 13's table with --pipelined (session 35's next.sh, last step), and the
# 4-clique's joint count's step clock (the host steps of a count, callees included), and issue
# 19's Nsight Compute figures.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 200 python3 bench/gpu/bench_gpu.py --out $OUT/bench-table --ablation "" --no-relabel --no-counters \
  --no-static --sizes 1000,10000 --batch-budget 20 --time-budget 190 --delete-fraction 0.1 \
  --no-kept-triangles --scales 20 --batches 3 --patterns 4-clique,diamond,4-cycle --pipelined \
  > $OUT/bench-table.log 2>&1
echo "bench rc $? at $(elapsed) s"; grep -A8 "^summary" $OUT/bench-table.log | cut -c1-200
timeout 100 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique --step-clock 20 > $OUT/step-clock.log 2>&1
echo "step clock rc $? at $(elapsed) s"; grep -A30 "^step clock" $OUT/step-clock.log | cut -c1-160
# Issue 19's Nsight Compute figures at today's defaults (session 28's way): every match launch of
# one RMAT-20 batch of 1,000 inserts, all against none.
M=gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio
timeout 150 ncu --clock-control none --kernel-name regex:match_ --metrics $M python3 bench/gpu/ncu_batch.py --scale 20 --size 1000 \
  --patterns 4-clique,diamond,4-cycle --balances all,none > $OUT/ncu-1000.log 2>&1
echo "ncu rc $? at $(elapsed) s"
grep -E "^(4-|diamond)|match_|duration|grid_size|registers|warps_active|thread_inst" $OUT/ncu-1000.log | sed -E 's/ +/ /g' | cut -c1-120
