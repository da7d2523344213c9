#!/usr/bin/env bash
# Session 28, device call 2 (device-check.sh's script step, the cache from call 1): the unroll_min_k
# rule against unrolling every k (allk4, the old default) on the same batches, three runs a setting;
# the kept triangles' upkeep by pieces against a warp per pair at more sizes; issue 13's deletion rows
# under the new defaults (the CPU engine's least time of two runs).
set -u
t0=$(date +%s)
for run in "20 1000 2 4-clique,diamond,4-cycle 45" "22 10000 1 4-cycle,4-clique,diamond 50"; do
  set -- $run
  timeout $5 python3 -u bench/gpu/balance_sweep.py --scale $1 --batch $2 --batches $3 --repeats 3 \
    --patterns $4 --settings "allk4:unroll_min_k=4" > $OUT/sweep-mink-$1-$2.log 2>&1
  echo "== rmat:$1 batch $2: rc $? at $(( $(date +%s) - t0 )) s"
  grep -v "^batch" $OUT/sweep-mink-$1-$2.log
done
for run in "20 1000" "20 10000" "22 10000"; do
  set -- $run
  timeout 45 python3 -u bench/gpu/triangle_upkeep.py --scale $1 --batch $2 --batches 2 --repeats 3 > $OUT/upkeep-$1-$2.log 2>&1
  echo "== upkeep rmat:$1 batch $2: rc $? at $(( $(date +%s) - t0 )) s"; grep -v "^rmat" $OUT/upkeep-$1-$2.log
done
timeout 175 python3 bench/gpu/bench_gpu.py --out $OUT/deletions --ablation "" --no-counters --no-relabel \
  --no-static --scales 20,22 --sizes 1000,10000 --batches 2 --delete-fraction 0.1 --patterns 4-cycle,diamond,4-clique \
  --batch-budget 10 --static-budget 3 --cpu-limit 40 --cpu-when-gpu-under 12 --cpu-repeats 2 \
  --time-budget 165 > $OUT/bench-deletions.log 2>&1
echo "bench rc $? at $(( $(date +%s) - t0 )) s"
grep -A30 "^summary" $OUT/bench-deletions.log | cut -c1-220; grep -c MISMATCH $OUT/bench-deletions.log
