#!/usr/bin/env bash
# Session 17, device call 4 (after the "compile" and "tests" steps): the house on RMAT-20 at 1,000
# with the memo on by default (memo_chunks 0), against the CPU engine.
s=$(date +%s)
timeout 230 python3 bench/gpu/bench_gpu.py --out "$OUT/house20" --no-counters --no-relabel --no-static \
  --scales 20 --sizes 1000 --batches 1 --patterns house --ablation nomemo --batch-budget 60 --static-budget 30 \
  --cpu-limit 150 --cpu-when-gpu-under 60 --time-budget 215 > "$OUT/house20.log" 2>&1
echo "house20 rc $? after $(($(date +%s) - s)) s" >> "$OUT/house20.log"
grep "batch\|summary\|  20\|rc \|rmat" "$OUT/house20.log" | cut -c1-200; grep -c MISMATCH "$OUT/house20.log"
