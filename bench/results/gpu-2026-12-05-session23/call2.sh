#!/usr/bin/env bash
# Session 23's second call, on call 1's warm machine: the GPU house formula's own tests (call 1's
# filtered run of test_cuda_engine.py reached 63% in its 230 s), the backend tests with room, and
# issue 13's RMAT-20 house at 10^4 against the CPU engine stopped at 10.5x the GPU's time.
#   run: carry [".devbundle", ".cupy-cache.tgz", ".commit", "data"], command:
#   DEVCHECK_STEPS="script" DEVCHECK_SCRIPT=bench/results/gpu-2026-12-05-session23/call2.sh bash scripts/device-check.sh
source scripts/device-steps.sh
step house-tests 120 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf \
  -k "house or slot_triangles" tests/kernels/test_cuda_engine.py
tail -n 5 "$OUT/house-tests.log"
step backend-tests 170 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf tests/workers/test_cuda_backend.py
tail -n 5 "$OUT/backend-tests.log"
bench house20-10k-cpu 270 --no-counters --patterns house --scales 20 --sizes 10000 --ablation "" \
  --cpu-stop-ratio 10.5 --cpu-when-gpu-under 60 --cpu-limit 100000
