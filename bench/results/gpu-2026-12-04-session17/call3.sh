#!/usr/bin/env bash
# Session 17, device call 3: the memo on by default, its hub tasks deferred and cut into chunks
# (Balance.memo_chunks per warp).  The memo tests; the chunk count swept on the house (RMAT-18, 1,000);
# the house plan by plan; the house against the CPU engine with the memo off and its chunks off.
step() {  # name, limit (s), command...
  local name=$1 limit=$2 s; shift 2; s=$(date +%s)
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc $? after $(($(date +%s) - s)) s" >> "$OUT/$name.log"
}
step memo-tests 120 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short --maxfail=3 -rf -k "memo" \
  tests/kernels/test_cuda_engine.py tests/workers/test_cuda_backend.py
tail -c 3000 "$OUT/memo-tests.log"
step sweep 130 python3 bench/gpu/balance_sweep.py --scale 18 --patterns house --batches 1 --repeats 2 \
  --settings "c0:memo_chunks=0;c1:memo_chunks=1;c16:memo_chunks=16;c64:memo_chunks=64;nomemo:last_memo=0"
tail -25 "$OUT/sweep.log" | cut -c1-200
step plans18 60 python3 bench/gpu/plan_split.py --scale 18 --size 1000 --pattern house --repeats 1
cut -c1-240 "$OUT/plans18.log"
step house 170 python3 bench/gpu/bench_gpu.py --out "$OUT/house" --no-counters --no-relabel --no-static \
  --scales 18 --sizes 1000 --batches 2 --patterns house --ablation nomemo,memochunks0,all --batch-budget 20 \
  --static-budget 30 --cpu-limit 60 --cpu-when-gpu-under 20 --time-budget 150
grep "batch\|summary\|  18\|rc " "$OUT/house.log" | cut -c1-200; grep -c MISMATCH "$OUT/house.log"
