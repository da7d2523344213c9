#!/usr/bin/env bash
# Session 23's first call: the GPU tests no device has run yet (session 22's house formula:
# slot triangles, houses with hubs cut into items, the house-formula static method; session 21's
# capped listing and the replica's GPU/CPU parity, whose static house count is now the CPU
# formula on the worker's host rows), then the house's static counts by formula against the match
# run on wiki-Vote and email-Enron and on RMAT-20 (session 22's call4.sh part 3).
#   run: carry [".devbundle", ".cupy-cache.tgz", ".commit", "data"] (data/ holds wiki-Vote and
#   email-Enron), command:
#   DEVCHECK_STEPS="compile script" DEVCHECK_SCRIPT=bench/results/gpu-2026-12-05-session23/call1.sh bash scripts/device-check.sh
source scripts/device-steps.sh
export DELTAMATCH_DATA=${DELTAMATCH_DATA:-$PWD/data}
step gpu-tests 230 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf \
  -k "house or slot_triangles or static_count_equals or static_method or listing or limit" \
  tests/kernels/test_cuda_engine.py
tail -n 5 "$OUT/gpu-tests.log"
step backend-tests 90 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf tests/workers/test_cuda_backend.py
tail -n 5 "$OUT/backend-tests.log"
step house-static 170 python3 bench/gpu/static_bench.py --out "$OUT/house-static" --graphs wiki-Vote,email-Enron,rmat:20 \
  --patterns house --ablation house-formula --ablation-graphs wiki-Vote,email-Enron,rmat:20 \
  --ablation-patterns house --skip "" --budget 20 --repeats 2
grep "house\|rc " "$OUT/house-static.log" | cut -c1-240
