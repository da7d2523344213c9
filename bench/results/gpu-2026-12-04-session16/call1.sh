#!/usr/bin/env bash
# Session 16, device call 1 (device-check.sh's "script" step): the house's batch plan by plan on
# RMAT-18 (GPU and CPU engine per plan), the house's load-balance thresholds swept, and the pair
# table's default decided at 10^5 (RMAT-20 4-cycle, 10% deletions, nopairhash against all).
step() {  # name, limit (s), command...
  local name=$1 limit=$2 s; shift 2; s=$(date +%s)
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc $? after $(($(date +%s) - s)) s" >> "$OUT/$name.log"
  tail -25 "$OUT/$name.log" | cut -c1-260
}
step plans18 150 python3 bench/gpu/plan_split.py --scale 18 --size 1000 --pattern house --cpu --repeats 2
step sweep18 120 python3 bench/gpu/balance_sweep.py --scale 18 --batch 1000 --batches 1 --repeats 1 --patterns house \
  --settings "defer512:defer_cost=512;defer8k:defer_cost=8192;share512:share_pairs=512;share16k:share_pairs=16384;cs16:AUTO_CHUNK_SHARE=16;cs256:AUTO_CHUNK_SHARE=256"
step pairhash 150 python3 bench/gpu/bench_gpu.py --out "$OUT/pairhash" --no-cpu --no-counters --no-relabel --no-static \
  --scales 20 --sizes 1000,100000 --batches 2 --delete-fraction 0.1 --patterns 4-cycle --ablation nopairhash,all \
  --batch-budget 20 --static-budget 3 --time-budget 130
