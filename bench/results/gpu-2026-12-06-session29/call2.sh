#!/usr/bin/env bash
# Session 29, device call 2 (after device-check.sh's compile step): every GPU test on the chunks in
# fixed slots -- the engine's (no -x: a failure does not hide the tests after it) and the rest.
set -u
t0=$(date +%s)
timeout 300 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py > $OUT/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(( $(date +%s) - t0 )) s"; tail -3 $OUT/gpu-tests-engine.log
timeout 90 python3 -m pytest -q -m gpu -p no:cacheprovider tests/workers/test_cuda_backend.py tests/workers/test_triangle_table.py \
  tests/bench/test_rmat.py tests/scheduler/test_warmup.py tests/test_api.py > $OUT/gpu-tests-rest.log 2>&1
echo "rest tests rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/gpu-tests-rest.log
