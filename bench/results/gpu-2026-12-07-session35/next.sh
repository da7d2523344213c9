#!/usr/bin/env bash
# Written at the end of session 35, NOT RUN: the first call of the next session.  Carry
# [".devbundle", ".commit", ".cupy-cache.tgz", ".numba-cache.tgz"] where a previous call of the
# same sources returned them; without them the first step compiles (about 130 s on a fresh H100).
# Then each pattern's joint batch of 1,000 with 10% deletions run as the service runs it
# (timeline.py --pipeline: 4-clique, diamond, 4-cycle; seed pieces on and off), and issue 13's
# table with the CPU engine beside it (RMAT-20, 1,000 and 10^4 with 10% deletions, --pipelined).
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 200 python3 bench/gpu/compile_builds.py > $OUT/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -2 $OUT/compile.log
timeout 120 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique,diamond,4-cycle --ab-reps 5 --pipeline 20 --pipeline-balances all,nopieces \
  > $OUT/timeline.log 2>&1
echo "timeline rc $? at $(elapsed) s"; grep -A7 "^pipeline" $OUT/timeline.log
timeout 240 python3 bench/gpu/bench_gpu.py --out $OUT/bench-table --ablation "" --no-relabel --no-counters \
  --no-static --sizes 1000,10000 --batch-budget 20 --time-budget 230 --delete-fraction 0.1 \
  --no-kept-triangles --scales 20 --batches 3 --patterns 4-clique,diamond,4-cycle --pipelined \
  > $OUT/bench-table.log 2>&1
echo "bench rc $? at $(elapsed) s"; grep -A8 "^summary" $OUT/bench-table.log | cut -c1-200
