#!/usr/bin/env bash
# Session 17, device call 1 (the "script" step): the GPU memo (Balance.last_memo) run for the first
# time.  The house on RMAT-18 at 1,000 with and without it (counts checked against the CPU engine),
# the house plan by plan with it, then the memo's GPU tests.
step() {  # name, limit (s), command...
  local name=$1 limit=$2 s; shift 2; s=$(date +%s)
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc $? after $(($(date +%s) - s)) s" >> "$OUT/$name.log"
}
step house 210 python3 bench/gpu/bench_gpu.py --out "$OUT/house" --no-counters --no-relabel --no-static \
  --scales 18 --sizes 1000 --batches 2 --patterns house --ablation memo,all --batch-budget 20 --static-budget 30 \
  --cpu-limit 60 --cpu-when-gpu-under 20 --time-budget 190
grep "batch\|summary\|  18\|rc " "$OUT/house.log" | cut -c1-220; grep -c MISMATCH "$OUT/house.log"
step plans18-memo 110 python3 bench/gpu/plan_split.py --scale 18 --size 1000 --pattern house --repeats 1 --balance memo
cut -c1-220 "$OUT/plans18-memo.log"
step memo-tests 250 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -k "memo" \
  tests/kernels/test_cuda_engine.py tests/workers/test_cuda_backend.py
tail -30 "$OUT/memo-tests.log"
