#!/usr/bin/env bash
# For the next session with device time (written in session 23, whose device time was spent):
# the GPU test files to their end, which no call has done since session 21 (session 23 found why:
# replica.fewest_first sized its bins by a listing cap of 10^9, fixed after its calls), with the
# house formula now on by default; then issue 13's RMAT-20 house at 10^4 with 10% deletions
# against the CPU engine (session 22's call4.sh, part 2).
#   run: carry [".devbundle", ".cupy-cache.tgz", ".commit"], command:
#   DEVCHECK_STEPS="compile script" DEVCHECK_SCRIPT=bench/results/gpu-2026-12-05-session23/next-call.sh bash scripts/device-check.sh
#   Expected: compile about 66 s; the tests about 300 s if they run as in session 21 (1,557 passed);
#   the deletions bench then needs a call of its own (session 22's call4.sh with PARTS=2, 540 s).
source scripts/device-steps.sh
step gpu-tests 420 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf --durations=10 \
  tests/kernels/test_cuda_engine.py tests/workers/test_cuda_backend.py tests/workers/test_triangle_table.py \
  tests/bench/test_rmat.py
tail -n 20 "$OUT/gpu-tests.log"
