#!/usr/bin/env bash
# Session 35, call 10: with seed pieces on by default and _MatchRun's fixed arguments assembled once,
# every engine GPU test and the other GPU tests, then the joint count's step clock and the pipeline
# (default against nopieces) again.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 200 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py > $OUT/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(elapsed) s"; tail -2 $OUT/gpu-tests-engine.log; grep -E "^FAILED|Error" $OUT/gpu-tests-engine.log | head -10
timeout 90 python3 -m pytest -q -m gpu -p no:cacheprovider tests/workers/test_triangle_table.py tests/workers/test_cuda_backend.py \
  tests/bench/test_rmat.py tests/scheduler/test_warmup.py tests/test_api.py > $OUT/gpu-tests-rest.log 2>&1
echo "rest tests rc $? at $(elapsed) s"; tail -2 $OUT/gpu-tests-rest.log; grep -E "^FAILED" $OUT/gpu-tests-rest.log | head
timeout 120 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique --ab-reps 5 --step-clock 30 --pipeline 30 --pipeline-balances all,nopieces \
  > $OUT/timeline.log 2>&1
echo "timeline rc $? at $(elapsed) s"; grep -A12 "^step clock 4-clique" $OUT/timeline.log; grep -A5 "^pipeline" $OUT/timeline.log | head -12
