#!/usr/bin/env bash
# Session 19, device call 2: the house on RMAT-18 at 1,000 with the memo's sharing on by default,
# against it off (nomemoshare), the overlap beside it, the memo off and the CPU engine; then plan
# by plan with the floor plan's last level from kept triangles (plan_split.py --kept).
step() {  # name, limit (s), command...
  local name=$1 limit=$2 s; shift 2; s=$(date +%s)
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc $? after $(($(date +%s) - s)) s" >> "$OUT/$name.log"
}
step house18 200 python3 bench/gpu/bench_gpu.py --out "$OUT/house18" --no-counters --no-relabel --no-static \
  --scales 18 --sizes 1000 --batches 2 --patterns house --ablation nomemoshare,overlap,nomemo \
  --batch-budget 20 --static-budget 30 --cpu-limit 60 --cpu-when-gpu-under 20 --time-budget 180
grep "batch\|summary\|  18\|rc " "$OUT/house18.log" | cut -c1-220; grep -c MISMATCH "$OUT/house18.log"
step plans18-kept 75 python3 bench/gpu/plan_split.py --scale 18 --size 1000 --pattern house --repeats 1 --kept
cut -c1-240 "$OUT/plans18-kept.log"
