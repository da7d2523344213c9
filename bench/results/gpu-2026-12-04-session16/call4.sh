#!/usr/bin/env bash
# Session 16, device call 4 (the "script" step, then "tests"): call 3's house run again, its builds now
# in the carried cache (call 3's runs spent their limits compiling).
run() {  # name, limit (s), bench arguments
  local name=$1 limit=$2 s; shift 2; s=$(date +%s)
  timeout "$limit" python3 bench/gpu/bench_gpu.py --out "$OUT/$name" --no-counters --no-relabel --no-static "$@" > "$OUT/bench-$name.log" 2>&1
  echo "bench $name rc $? after $(($(date +%s) - s)) s" >> "$OUT/bench-$name.log"
  grep "batch\|summary\|  18" "$OUT/bench-$name.log" | cut -c1-200; grep -c MISMATCH "$OUT/bench-$name.log"
}
run house 190 --scales 18 --sizes 1000 --batches 2 --patterns house --ablation nodriveshort,all --batch-budget 20 --static-budget 30 --cpu-limit 60 --cpu-when-gpu-under 20 --time-budget 170
