#!/usr/bin/env bash
# Session 19, device call 1 (after the "compile" step; the device came late, so one call does what
# three were planned for): the GPU tests of the memo and the kept triangles with the memo's sharing
# on by default, the house on RMAT-18 at 1,000 against the sharing off (nomemoshare), the overlap
# beside it and the CPU engine, then plan by plan with the floor plan's last level from kept
# triangles (plan_split.py --kept).
step() {  # name, limit (s), command...
  local name=$1 limit=$2 s; shift 2; s=$(date +%s)
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc $? after $(($(date +%s) - s)) s" >> "$OUT/$name.log"
}
step gpu-tests 110 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf -k "memo or kept" \
  tests/kernels/test_cuda_engine.py tests/workers/test_triangle_table.py tests/workers/test_cuda_backend.py
tail -n 3 "$OUT/gpu-tests.log"
step house18 165 python3 bench/gpu/bench_gpu.py --out "$OUT/house18" --no-counters --no-relabel --no-static \
  --scales 18 --sizes 1000 --batches 2 --patterns house --ablation nomemoshare,overlap \
  --batch-budget 20 --static-budget 30 --cpu-limit 60 --cpu-when-gpu-under 20 --time-budget 150
grep "batch\|summary\|  18\|rc " "$OUT/house18.log" | cut -c1-220; grep -c MISMATCH "$OUT/house18.log"
step plans18-kept 75 python3 bench/gpu/plan_split.py --scale 18 --size 1000 --pattern house --repeats 1 --kept
cut -c1-240 "$OUT/plans18-kept.log"
