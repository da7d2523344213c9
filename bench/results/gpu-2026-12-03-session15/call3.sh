#!/usr/bin/env bash
# Session 15, device call 3 (device-check.sh's "script" step): the #13 table with the pair table and
# the list checks (RMAT-20/22 at 1,000 and 10^4 against the CPU engine on 16 threads), RMAT-20 at
# 10^5 with 10% deletions, and the house on RMAT-18 at 1,000.
run() {  # name, limit (s), bench arguments
  local name=$1 limit=$2 s; shift 2; s=$(date +%s)
  timeout "$limit" python3 bench/gpu/bench_gpu.py --out "$OUT/$name" --ablation "" --no-counters --no-relabel --no-static "$@" > "$OUT/bench-$name.log" 2>&1
  echo "bench $name rc $? after $(($(date +%s) - s)) s" >> "$OUT/bench-$name.log"
  grep -A30 "^summary" "$OUT/bench-$name.log" | cut -c1-200; grep -c MISMATCH "$OUT/bench-$name.log"
}
run table 120 --scales 20,22 --sizes 1000,10000 --batches 3 --patterns 4-cycle,diamond,4-clique --batch-budget 10 --static-budget 3 --cpu-limit 30 --cpu-when-gpu-under 12 --time-budget 110
run big 150 --scales 20 --sizes 100000 --batches 2 --delete-fraction 0.1 --patterns 4-cycle,diamond,4-clique --batch-budget 20 --static-budget 3 --cpu-limit 60 --cpu-when-gpu-under 20 --time-budget 140
run house 100 --scales 18 --sizes 1000 --batches 3 --patterns house --batch-budget 20 --static-budget 30 --cpu-limit 30 --cpu-when-gpu-under 20 --time-budget 90
