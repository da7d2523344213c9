#!/usr/bin/env bash
# Session 31, device call 2 (the same warm machine as call 1): issue 13's recount ratio at 1,000 on
# RMAT-22 (inserts and 10% deletions) and at 10^4 on RMAT-20, GPU only, five batches a cell.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
bench() {  # name, extra args
  timeout 150 python3 bench/gpu/bench_gpu.py --out $OUT/bench-$1 --ablation "" --no-counters --no-relabel \
    --no-static --no-cpu --sizes 1000 --batches 5 --patterns diamond,4-clique \
    --batch-budget 10 --time-budget 120 "${@:2}" > $OUT/bench-$1.log 2>&1
  echo "bench $1 rc $? at $(elapsed) s"; grep -A4 "^summary" $OUT/bench-$1.log | cut -c1-160
}
bench r22-ins --scales 22
bench r22-del --scales 22 --delete-fraction 0.1
