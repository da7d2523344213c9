#!/usr/bin/env bash
# Session 30, device call 1: where a RMAT-20 batch of 1,000 spends its host time, step by step
# (timeline.py --step-clock: the 4-clique's and the diamond's counts and the update), and what a
# count would take with its launches replayed as one CUDA graph (--graph-replay).
set -u
t0=$(date +%s)
timeout 200 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --patterns 4-clique,diamond \
  --step-clock 100 --graph-replay 100 > $OUT/timeline-steps.log 2>&1
echo "timeline rc $? at $(( $(date +%s) - t0 )) s"; grep -vE "^ +[0-9.]+ ms +x" $OUT/timeline-steps.log | tail -80
