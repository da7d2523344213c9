#!/usr/bin/env bash
# Session 14, device call 6 (after device-check.sh's "tests" step, PYTEST_ARGS adding the backend's
# tests; .cupy-cache carried): the graph update planned in one numba call and uploaded in one copy
# (plan_update). Its host profile again (call 5 for before), then the #13 table's RMAT-20/22 at 1,000.
s=$(date +%s)
timeout 60 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --patterns 4-clique --host-profile 20 --top 10 > $OUT/timeline.log 2>&1
echo "timeline rc $? after $(($(date +%s) - s)) s" >> $OUT/timeline.log
grep -E "^(steady|host)|rc " $OUT/timeline.log
s=$(date +%s)
timeout 120 python3 bench/gpu/bench_gpu.py --out $OUT/table --scales 20,22 --sizes 1000,10000 --batches 3 --patterns 4-cycle,diamond,4-clique --ablation "" --no-counters --batch-budget 10 --static-budget 3 --cpu-limit 30 --cpu-when-gpu-under 12 --no-relabel --no-static --time-budget 110 > $OUT/bench-table.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-table.log
grep -A30 "^summary" $OUT/bench-table.log | cut -c1-200; grep -c MISMATCH $OUT/bench-table.log
