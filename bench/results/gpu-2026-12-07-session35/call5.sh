#!/usr/bin/env bash
# Session 35, call 5: call 4's pieces-from-1,024 run with counters again (it spent its 60 s
# compiling the statistics build with pieces), 4-clique only.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 240 python3 bench/gpu/bench_gpu.py --out $OUT/bench-pieces1024 --ablation "" --no-relabel \
  --no-static --no-cpu --sizes 1000 --batch-budget 10 --time-budget 230 --delete-fraction 0.1 \
  --no-kept-triangles --scales 20 --batches 5 --patterns 4-clique --balance pieces1024 --counters \
  > $OUT/bench-pieces1024.log 2>&1
echo "bench rc $? at $(elapsed) s"; grep -E "^  batch" $OUT/bench-pieces1024.log | cut -c1-100,150-460
