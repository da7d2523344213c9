#!/usr/bin/env bash
# Written at the end of session 35, NOT RUN: the first call of the next session.  Carry
# [".devbundle", ".commit", ".cupy-cache.tgz", ".numba-cache.tgz"] where an earlier call of the
# same sources returned them; without them the first step compiles every build and the CPU engine
# (about 130 s on a fresh H100).  Then: DM_PREFETCH_NEXT (Balance.prefetch_next, session 35, only
# compiled so far) through its parity tests, each task of a batch counted alone with it and without
# (task_times.py: the slope per source entry, 0.095 us without), each pattern's joint batch run as
# the service runs it (timeline.py --pipeline; the 4-clique's also on new batches, --pipeline-fresh,
# new and untried), and issue 13's table (--pipelined).
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 200 python3 bench/gpu/compile_builds.py > $OUT/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -2 $OUT/compile.log
timeout 90 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py -k "prefetch1" \
  > $OUT/gpu-tests-prefetch.log 2>&1
echo "prefetch tests rc $? at $(elapsed) s"; tail -2 $OUT/gpu-tests-prefetch.log; grep -E "^FAILED" $OUT/gpu-tests-prefetch.log | head
for b in all prefetch; do
  timeout 60 python3 bench/gpu/task_times.py --pattern 4-clique --balance $b --top 5 --out $OUT/tasks-$b.csv \
    > $OUT/tasks-$b.log 2>&1
  echo "tasks $b rc $? at $(elapsed) s"; grep -A6 "whole batch\|phase 0 alone" $OUT/tasks-$b.log | cut -c1-300
done
timeout 120 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique,diamond,4-cycle --ab-reps 5 --pipeline 20 --pipeline-balances all,prefetch,nopieces \
  > $OUT/timeline.log 2>&1
echo "timeline rc $? at $(elapsed) s"; grep -A7 "^pipeline" $OUT/timeline.log
timeout 90 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique --ab-reps 5 --pipeline 20 --pipeline-fresh --pipeline-balances all,prefetch,nopieces \
  > $OUT/timeline-fresh.log 2>&1
echo "timeline fresh rc $? at $(elapsed) s"; grep -A5 "^pipeline" $OUT/timeline-fresh.log
timeout 200 python3 bench/gpu/bench_gpu.py --out $OUT/bench-table --ablation "" --no-relabel --no-counters \
  --no-static --sizes 1000,10000 --batch-budget 20 --time-budget 190 --delete-fraction 0.1 \
  --no-kept-triangles --scales 20 --batches 3 --patterns 4-clique,diamond,4-cycle --pipelined \
  > $OUT/bench-table.log 2>&1
echo "bench rc $? at $(elapsed) s"; grep -A8 "^summary" $OUT/bench-table.log | cut -c1-200
