#!/usr/bin/env bash
# Session 16, device call 5: the #13 table's RMAT-20 rows at 1,000 (now without a pair table) against
# the CPU engine, and the house's plan split after DM_DRIVE_SHORT (GPU only).
s=$(date +%s)
timeout 125 python3 bench/gpu/bench_gpu.py --out "$OUT/table" --no-counters --no-relabel --no-static --scales 20 --sizes 1000 --batches 3 --patterns 4-cycle,diamond,4-clique --ablation "" --batch-budget 10 --static-budget 3 --cpu-limit 30 --cpu-when-gpu-under 12 --time-budget 110 > "$OUT/bench-table.log" 2>&1
echo "bench table rc $? after $(($(date +%s) - s)) s" >> "$OUT/bench-table.log"
grep -A12 "^summary" "$OUT/bench-table.log" | cut -c1-200; grep -c MISMATCH "$OUT/bench-table.log"
s=$(date +%s)
timeout 70 python3 bench/gpu/plan_split.py --scale 18 --size 1000 --pattern house --repeats 1 > "$OUT/plans18.log" 2>&1
echo "plans18 rc $? after $(($(date +%s) - s)) s" >> "$OUT/plans18.log"
cut -c1-200 "$OUT/plans18.log"
