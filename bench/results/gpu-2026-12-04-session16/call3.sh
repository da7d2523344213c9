#!/usr/bin/env bash
# Session 16, device call 3 (the "script" step, then "tests"): the house with a short row walked for a
# long base set (DM_DRIVE_SHORT) against nodriveshort, RMAT-18 at 1,000 beside the CPU engine; the
# #13 table at RMAT-20 (1,000 now without a pair table, 10^4 with one).
run() {  # name, limit (s), bench arguments
  local name=$1 limit=$2 s; shift 2; s=$(date +%s)
  timeout "$limit" python3 bench/gpu/bench_gpu.py --out "$OUT/$name" --no-counters --no-relabel --no-static "$@" > "$OUT/bench-$name.log" 2>&1
  echo "bench $name rc $? after $(($(date +%s) - s)) s" >> "$OUT/bench-$name.log"
  grep -A30 "^summary" "$OUT/bench-$name.log" | cut -c1-200; grep -c MISMATCH "$OUT/bench-$name.log"
}
run house 130 --scales 18 --sizes 1000 --batches 2 --patterns house --ablation nodriveshort,all --batch-budget 20 --static-budget 30 --cpu-limit 60 --cpu-when-gpu-under 20 --time-budget 120
run table 100 --scales 20 --sizes 1000,10000 --batches 3 --patterns 4-cycle,diamond,4-clique --ablation "" --batch-budget 10 --static-budget 3 --cpu-limit 30 --cpu-when-gpu-under 12 --time-budget 90
