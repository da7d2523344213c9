#!/usr/bin/env bash
# Session 19, device call 2: the house on RMAT-20 with the memo's sharing on by default: one batch
# of 1,000 against the sharing off and the CPU engine, and the recount.
step() {  # name, limit (s), command...
  local name=$1 limit=$2 s; shift 2; s=$(date +%s)
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc $? after $(($(date +%s) - s)) s" >> "$OUT/$name.log"
}
step house20 400 python3 bench/gpu/bench_gpu.py --out "$OUT/house20" --no-counters --no-relabel --no-static \
  --scales 20 --sizes 1000 --batches 1 --patterns house --ablation nomemoshare \
  --batch-budget 60 --static-budget 60 --cpu-limit 170 --cpu-when-gpu-under 60 --time-budget 380
grep "batch\|summary\|  20\|rc \|recount" "$OUT/house20.log" | cut -c1-220; grep -c MISMATCH "$OUT/house20.log"
