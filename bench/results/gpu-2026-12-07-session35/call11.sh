#!/usr/bin/env bash
# Session 35, call 11: the engine GPU tests call 10 did not reach (its slow host ran out of time at
# 94%: the last 7% of the list, call11-tests.txt), then issue 13's batches with deletions timed as
# a whole (--pipelined) with seed pieces (the default) and without, and the pipeline trace again.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
xargs -a bench/results/gpu-2026-12-07-session35/call11-tests.txt timeout 100 python3 -m pytest -q -m gpu \
  -p no:cacheprovider > $OUT/gpu-tests-engine-rest.log 2>&1
echo "engine tests rc $? at $(elapsed) s"; tail -2 $OUT/gpu-tests-engine-rest.log; grep -E "^FAILED|Error" $OUT/gpu-tests-engine-rest.log | head
for b in all nopieces; do
  timeout 75 python3 bench/gpu/bench_gpu.py --out $OUT/bench-$b --ablation "" --no-relabel --no-counters \
    --no-static --no-cpu --sizes 1000 --batch-budget 10 --time-budget 65 --delete-fraction 0.1 \
    --no-kept-triangles --scales 20 --batches 5 --patterns 4-clique,diamond,4-cycle --balance $b --pipelined \
    > $OUT/bench-$b.log 2>&1
  echo "bench $b rc $? at $(elapsed) s"; grep -A4 "^summary" $OUT/bench-$b.log | cut -c1-200
done
timeout 60 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique --ab-reps 5 --pipeline 20 --pipeline-balances all,nopieces > $OUT/timeline.log 2>&1
echo "timeline rc $? at $(elapsed) s"; grep -A5 "^pipeline" $OUT/timeline.log | head -12
