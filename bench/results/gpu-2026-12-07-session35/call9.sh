#!/usr/bin/env bash
# Session 35, call 9 (pieces on by default): where the joint count's host time goes now
# (timeline.py --step-clock), the pipeline again (default against nopieces), and host_costs.py.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 200 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique --ab-reps 5 --step-clock 30 --pipeline 30 --pipeline-balances all,nopieces \
  > $OUT/timeline.log 2>&1
echo "timeline rc $? at $(elapsed) s"; grep -A40 "^step clock" $OUT/timeline.log | head -60; grep -A8 "^pipeline" $OUT/timeline.log
timeout 60 python3 bench/gpu/host_costs.py --reps 200 > $OUT/host-costs.log 2>&1
echo "host costs rc $? at $(elapsed) s"; cat $OUT/host-costs.log
