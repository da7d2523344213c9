#!/usr/bin/env bash
# For the next session's first call (written in session 21, whose device time was spent): the GPU
# tests of the capped listing (104e440: both engines take a row limit; the replica lists the tasks
# with the fewest matches) and the replica's GPU/CPU parity, whose listings now go through it; then
# issue 17's single-card stand-in again, which found no batch done in 290 s before that fix
# (bench/results/multi-gpu/README.md).
#   run: carry [".devbundle", ".cupy-cache.tgz", ".commit"], command:
#   DEVCHECK_STEPS="compile script multi" DEVCHECK_SCRIPT=bench/results/gpu-2026-12-05-session21/call3.sh \
#     MULTI_TIMEOUT=330 MULTI_ARGS="--graphs rmat:20 --sizes 1000 10000 --workers 1 2 4 \
#     --patterns 4-clique diamond 4-cycle house --batches 2 --warmup 1 --time-budget 290" \
#     bash scripts/device-check.sh
#   (`compile` first: with the CuPy cache carried it is numba's cold compile, about 100 s, which
#   otherwise lands in the tests' 150 s or a bench's time budget, as in this session's call 3)
step() {  # name, limit (s), command...
  local name=$1 limit=$2 s; shift 2; s=$(date +%s)
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc $? after $(($(date +%s) - s)) s" >> "$OUT/$name.log"
}
step gpu-tests 90 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf -k "listing or limit" \
  tests/kernels/test_cuda_engine.py
tail -n 3 "$OUT/gpu-tests.log"
step backend-tests 90 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf tests/workers/test_cuda_backend.py
tail -n 3 "$OUT/backend-tests.log"
