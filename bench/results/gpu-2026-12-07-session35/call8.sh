#!/usr/bin/env bash
# Session 35, call 8: where a joint batch's time goes when run as the service runs it (timeline.py
# --pipeline, new): each step's end on the host and on the device, the default against seed pieces
# from degree 1,024, RMAT-20 4-clique, 1,000 with 10% deletions.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 200 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique --ab-reps 5 --pipeline 30 --pipeline-balances all,pieces1024 \
  > $OUT/pipeline.log 2>&1
echo "pipeline rc $? at $(elapsed) s"; grep -A8 "^pipeline\|^deletions" $OUT/pipeline.log
