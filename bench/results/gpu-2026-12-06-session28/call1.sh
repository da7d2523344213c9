#!/usr/bin/env bash
# Session 28, device call 1 (run by scripts/device-check.sh's script step, after its compile step
# into a fresh cache): every GPU test on the kernels as they are (flat_below parity cases, the
# unroll_min_k rule: 4-vertex patterns split alone by default; the kept triangles' upkeep a warp per
# piece of a pair's shorter row, with hub bitmap lookups), then that upkeep against a warp per pair
# on RMAT-22 batches of 1,000 with 10% deletions.
set -u
t0=$(date +%s)
timeout 150 python3 -m pytest -q -m gpu -p no:cacheprovider -x tests/kernels/test_cuda_engine.py > $OUT/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/gpu-tests-engine.log
timeout 80 python3 -m pytest -q -m gpu -p no:cacheprovider tests/workers/test_cuda_backend.py tests/workers/test_triangle_table.py \
  tests/bench/test_rmat.py tests/scheduler/test_warmup.py tests/test_api.py > $OUT/gpu-tests-rest.log 2>&1
echo "rest tests rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/gpu-tests-rest.log
timeout 60 python3 -u bench/gpu/triangle_upkeep.py --scale 22 --batch 1000 --batches 2 --repeats 3 > $OUT/upkeep-22-1000.log 2>&1
echo "upkeep rc $? at $(( $(date +%s) - t0 )) s"; cat $OUT/upkeep-22-1000.log
