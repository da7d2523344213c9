#!/usr/bin/env bash
# Session 28, device call 3 (warm after call 2): issue 13's insert rows under the new defaults (the
# unroll_min_k rule, the kept triangles by pieces), then where a 4-clique batch of 1,000 spends its time.
set -u
t0=$(date +%s)
timeout 200 python3 bench/gpu/bench_gpu.py --out $OUT/inserts --ablation "" --no-counters --no-relabel \
  --no-static --scales 20,22 --sizes 1000,10000 --batches 2 --delete-fraction 0 --patterns 4-cycle,diamond,4-clique \
  --batch-budget 10 --static-budget 3 --cpu-limit 40 --cpu-when-gpu-under 12 --cpu-repeats 2 \
  --time-budget 190 > $OUT/bench-inserts.log 2>&1
echo "bench rc $? at $(( $(date +%s) - t0 )) s"
grep -A30 "^summary" $OUT/bench-inserts.log | cut -c1-220; grep -c MISMATCH $OUT/bench-inserts.log
timeout 90 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --patterns 4-clique,diamond --host-profile 10 > $OUT/timeline.log 2>&1
echo "timeline rc $? at $(( $(date +%s) - t0 )) s"; grep -E "^(steady|host)" $OUT/timeline.log
