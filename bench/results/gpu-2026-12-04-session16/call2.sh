#!/usr/bin/env bash
# Session 16, device call 2: call 1's plan split again (it printed only at its end and ran out of
# time), and the pair table at 10^5 inserts (bench_gpu.py runs no ablation on batches with deletions).
step() {  # name, limit (s), command...
  local name=$1 limit=$2 s; shift 2; s=$(date +%s)
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc $? after $(($(date +%s) - s)) s" >> "$OUT/$name.log"
  tail -25 "$OUT/$name.log" | cut -c1-330
}
step plans18 240 python3 bench/gpu/plan_split.py --scale 18 --size 1000 --pattern house --cpu --repeats 2
step pairhash 150 python3 bench/gpu/bench_gpu.py --out "$OUT/pairhash" --no-cpu --no-counters --no-relabel --no-static \
  --scales 20 --sizes 100000 --batches 2 --patterns 4-cycle --ablation nopairhash,all \
  --batch-budget 20 --static-budget 3 --time-budget 130
