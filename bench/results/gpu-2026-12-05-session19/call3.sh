#!/usr/bin/env bash
# Session 19, device call 3: the house on RMAT-20 with the memo's sharing on by default: one batch
# of 1,000 against the CPU engine, one of 10^4 (GPU alone past 15 s), and the recount.
step() {  # name, limit (s), command...
  local name=$1 limit=$2 s; shift 2; s=$(date +%s)
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc $? after $(($(date +%s) - s)) s" >> "$OUT/$name.log"
}
step house20 480 python3 bench/gpu/bench_gpu.py --out "$OUT/house20" --no-counters --no-relabel --no-static \
  --scales 20 --sizes 1000,10000 --batches 1 --patterns house --ablation nomemoshare \
  --batch-budget 90 --static-budget 60 --cpu-limit 170 --cpu-when-gpu-under 15 --time-budget 440
grep "batch\|summary\|  20\|rc \|recount" "$OUT/house20.log" | cut -c1-220; grep -c MISMATCH "$OUT/house20.log"
