#!/usr/bin/env bash
# Session 37, call 2 (session 36's next-2.sh): the pipeline on the repeated batch (three
# patterns), READ_AHEAD on new batches, issue 13's table with --pipelined, and the 4-clique's joint count's step clock (the host
# steps of a count, callees included).
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 120 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique,diamond,4-cycle --ab-reps 5 --pipeline 20 --pipeline-balances all,prefetch,nopieces \
  > $OUT/timeline.log 2>&1
echo "timeline rc $? at $(elapsed) s"; grep -A7 "^pipeline" $OUT/timeline.log
# READ_AHEAD (new): a joint count's results read before the deletions queued behind it, on new batches.
timeout 90 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique --ab-reps 3 --pipeline 20 --pipeline-fresh --pipeline-ab READ_AHEAD --pipeline-balances all \
  > $OUT/timeline-read-ahead.log 2>&1
echo "read ahead rc $? at $(elapsed) s"; grep -A5 "^pipeline" $OUT/timeline-read-ahead.log
timeout 200 python3 bench/gpu/bench_gpu.py --out $OUT/bench-table --ablation "" --no-relabel --no-counters \
  --no-static --sizes 1000,10000 --batch-budget 20 --time-budget 190 --delete-fraction 0.1 \
  --no-kept-triangles --scales 20 --batches 3 --patterns 4-clique,diamond,4-cycle --pipelined \
  > $OUT/bench-table.log 2>&1
echo "bench rc $? at $(elapsed) s"; grep -A8 "^summary" $OUT/bench-table.log | cut -c1-200
timeout 100 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique --step-clock 20 > $OUT/step-clock.log 2>&1
echo "step clock rc $? at $(elapsed) s"; grep -A30 "^step clock" $OUT/step-clock.log | cut -c1-160
