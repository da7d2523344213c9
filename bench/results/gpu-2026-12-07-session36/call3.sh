#!/usr/bin/env bash
# Session 36, call 3 (the last of the budget): the scratch kept at a stable size (STABLE_SCRATCH) on
# and off on new batches (beside the prefetch build), then, with STABLE_SCRATCH, the engine's GPU
# tests for as long as the call lasts.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 200 python3 bench/gpu/compile_builds.py > $OUT/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $OUT/compile.log
timeout 80 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique --ab-reps 3 --pipeline 20 --pipeline-fresh --pipeline-ab STABLE_SCRATCH \
  --pipeline-balances all,prefetch > $OUT/timeline-fresh-ab.log 2>&1
echo "timeline fresh ab rc $? at $(elapsed) s"; grep -A5 "^pipeline" $OUT/timeline-fresh-ab.log
left=$(( 440 - $(elapsed) ))
timeout $left python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py \
  > $OUT/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(elapsed) s"; tail -2 $OUT/gpu-tests-engine.log; grep -E "^FAILED" $OUT/gpu-tests-engine.log | head
