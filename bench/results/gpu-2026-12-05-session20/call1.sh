#!/usr/bin/env bash
# Written in session 20 for the next device call (no device time was left): the GPU tests at the
# new default (the house's floor edge read from kept triangles, KEPT_LAST_SIZES = (4, 5)), then the
# house's batches the issue asks for and no session has run: RMAT-20 at 10^4 against nokept, RMAT-20
# at 1,000 with 10% deletions, RMAT-22 at 1,000.  GPU only: the CPU engine took 135 s for one
# RMAT-20 batch of 1,000 (session 17).
#   run: carry [".devbundle", ".cupy-cache.tgz", ".commit"] (cp the last call's cupy-cache.tgz to
#   .cupy-cache.tgz; device-check.sh unpacks it), command:
#   DEVCHECK_STEPS="compile script" DEVCHECK_SCRIPT=bench/results/gpu-2026-12-05-session20/call1.sh bash scripts/device-check.sh
#   (compile: cached builds load in seconds, a fresh checkout has no cache and compiles them in
#   about 160 s; numba compiles the CPU engine beside them)
step() {  # name, limit (s), command...
  local name=$1 limit=$2 s; shift 2; s=$(date +%s)
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc $? after $(($(date +%s) - s)) s" >> "$OUT/$name.log"
}
house() {  # name, limit (s), bench_gpu.py arguments...
  local name=$1 limit=$2; shift 2
  step "$name" "$limit" python3 bench/gpu/bench_gpu.py --out "$OUT/$name" --no-counters --no-relabel --no-static \
    --no-cpu --patterns house --batches 1 --static-budget 5 --batch-budget 60 --time-budget $((limit - 20)) "$@"
  grep "batch\|summary\|house  \|rc \|edges" "$OUT/$name.log" | cut -c1-220; grep -c MISMATCH "$OUT/$name.log"
}
# PARTS (default "1 2"): part 1 the tests and RMAT-20 at 10^4, part 2 the rest.  Both and a cold
# compile step pass a call's 600 s: without a carried cache, run PARTS=1 and then PARTS=2.
parts=" ${PARTS:-1 2} "
if [[ $parts == *" 1 "* ]]; then
step gpu-tests 200 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf tests/kernels/test_cuda_engine.py \
  tests/workers/test_cuda_backend.py tests/workers/test_triangle_table.py tests/bench/test_rmat.py
tail -n 3 "$OUT/gpu-tests.log"
house house20-10k 150 --scales 20 --sizes 10000 --ablation nokept
fi
if [[ $parts == *" 2 "* ]]; then
house house20-del 80 --scales 20 --sizes 1000 --delete-fraction 0.1 --ablation ""
house house22 120 --scales 22 --sizes 1000 --ablation ""
fi
