#!/usr/bin/env bash
# Session 17, device call 2: call 1's memo tests again, to see the failure (call 1's ran out of time
# compiling), then call 1's house bench, its builds now in the carried cache.
step() {  # name, limit (s), command...
  local name=$1 limit=$2 s; shift 2; s=$(date +%s)
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc $? after $(($(date +%s) - s)) s" >> "$OUT/$name.log"
}
step memo-tests 200 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short --maxfail=3 -rf -k "memo" \
  tests/kernels/test_cuda_engine.py tests/workers/test_cuda_backend.py
tail -c 6000 "$OUT/memo-tests.log"
step house 230 python3 bench/gpu/bench_gpu.py --out "$OUT/house" --no-counters --no-relabel --no-static \
  --scales 18 --sizes 1000 --batches 2 --patterns house --ablation memo,all --batch-budget 20 --static-budget 30 \
  --cpu-limit 60 --cpu-when-gpu-under 20 --time-budget 210
grep "batch\|summary\|  18\|rc \|compil" "$OUT/house.log" | cut -c1-220; grep -c MISMATCH "$OUT/house.log"
