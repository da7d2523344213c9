#!/usr/bin/env bash
# Session 36, call 3 (the last of the budget, about 300 s): the scratch kept at a stable size
# (STABLE_SCRATCH) on and off on new batches (the default build compiled on first use), then the
# engine's GPU tests for what is left of the call.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 170 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique --ab-reps 3 --pipeline 20 --pipeline-fresh --pipeline-ab STABLE_SCRATCH \
  --pipeline-balances all > $OUT/timeline-fresh-ab.log 2>&1
echo "timeline fresh ab rc $? at $(elapsed) s"; grep -A5 "^pipeline" $OUT/timeline-fresh-ab.log
left=$(( 270 - $(elapsed) ))
timeout $left python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py -k "clique or diamond" \
  > $OUT/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(elapsed) s"; tail -2 $OUT/gpu-tests-engine.log; grep -E "^FAILED" $OUT/gpu-tests-engine.log | head
