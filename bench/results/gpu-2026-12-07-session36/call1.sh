#!/usr/bin/env bash
# Session 36, call 1 (devices scarce: what matters most first): compile every build,
# DM_PREFETCH_NEXT's parity tests, its slope (task_times.py), the pipeline on new batches
# (--pipeline-fresh, 4-clique), the repeated batch with L2 flushed before each run
# (--pipeline-flush), issue 19's Nsight Compute figures at today's defaults.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 200 python3 bench/gpu/compile_builds.py > $OUT/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -2 $OUT/compile.log
timeout 80 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py -k "prefetch1" \
  > $OUT/gpu-tests-prefetch.log 2>&1
echo "prefetch tests rc $? at $(elapsed) s"; tail -2 $OUT/gpu-tests-prefetch.log; grep -E "^FAILED" $OUT/gpu-tests-prefetch.log | head
for b in all prefetch; do
  timeout 60 python3 bench/gpu/task_times.py --pattern 4-clique --balance $b --top 5 --out $OUT/tasks-$b.csv \
    > $OUT/tasks-$b.log 2>&1
  echo "tasks $b rc $? at $(elapsed) s"; grep -A6 "whole batch\|phase 0 alone" $OUT/tasks-$b.log | cut -c1-300
done
timeout 90 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique --ab-reps 5 --pipeline 20 --pipeline-fresh --pipeline-balances all,prefetch,nopieces \
  > $OUT/timeline-fresh.log 2>&1
echo "timeline fresh rc $? at $(elapsed) s"; grep -A5 "^pipeline" $OUT/timeline-fresh.log
timeout 70 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique --ab-reps 3 --pipeline 20 --pipeline-flush --pipeline-balances all,nopieces \
  > $OUT/timeline-flush.log 2>&1
echo "timeline flush rc $? at $(elapsed) s"; grep -A5 "^pipeline" $OUT/timeline-flush.log
# Issue 19's Nsight Compute figures at today's defaults (session 28's way): every match launch of
# one RMAT-20 batch of 1,000 inserts, all against none.
M=gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio
timeout 120 ncu --clock-control none --kernel-name regex:match_ --metrics $M python3 bench/gpu/ncu_batch.py --scale 20 --size 1000 \
  --patterns 4-clique,4-cycle --balances all,none > $OUT/ncu-1000.log 2>&1
echo "ncu rc $? at $(elapsed) s"
grep -E "^(4-|diamond)|match_|duration|grid_size|registers|warps_active|thread_inst" $OUT/ncu-1000.log | sed -E 's/ +/ /g' | cut -c1-120
