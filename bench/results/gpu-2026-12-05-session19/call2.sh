#!/usr/bin/env bash
# Device call 2 (session 20, the warm machine after call 1, whose plan split read the house's
# floor-edge plan 4 at 9.6 ms from kept triangles against about 700 ms without): with
# KEPT_LAST_SIZES = (4, 5), the house on RMAT-20 at 1,000 against the nokept ablation, then the
# triangle-table GPU tests.
step() {  # name, limit (s), command...
  local name=$1 limit=$2 s; shift 2; s=$(date +%s)
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc $? after $(($(date +%s) - s)) s" >> "$OUT/$name.log"
}
step house20 250 python3 bench/gpu/bench_gpu.py --out "$OUT/house20" --no-counters --no-relabel --no-static \
  --scales 20 --sizes 1000 --batches 1 --patterns house --ablation nokept \
  --batch-budget 30 --static-budget 5 --cpu-limit 1 --cpu-when-gpu-under 0 --time-budget 230
grep "batch\|summary\|  20\|rc \|edges" "$OUT/house20.log" | cut -c1-220; grep -c MISMATCH "$OUT/house20.log"
step kept-tests 90 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf tests/workers/test_triangle_table.py
tail -n 5 "$OUT/kept-tests.log"
