#!/usr/bin/env bash
# Session 35, call 4: call 3 found phase 0's slowest warps on seeds whose endpoints both have degree
# ~3,500 (a level-2 source of ~3,500 at ~3 us a warp step), below seed pieces' piece_min_degree of
# 4,096: so session 34's pieces never took them.  Pieces from degree 1,024 against none, with the
# kernel's counters, on call 1's batches (RMAT-20, 1,000 with 10% deletions, joint).
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
bench() {  # name, time limit, extra args
  timeout $2 python3 bench/gpu/bench_gpu.py --out $OUT/bench-$1 --ablation "" --no-relabel \
    --no-static --no-cpu --sizes 1000 --batch-budget 10 --time-budget $(( $2 - 10 )) --delete-fraction 0.1 \
    --no-kept-triangles "${@:3}" > $OUT/bench-$1.log 2>&1
  echo "bench $1 rc $? at $(elapsed) s"; grep -E "^  batch" $OUT/bench-$1.log | cut -c1-100,150-420; grep -A4 "^summary" $OUT/bench-$1.log | cut -c1-160
}
bench pieces1024 60 --scales 20 --batches 5 --patterns 4-clique,4-cycle --balance pieces1024 --counters
bench all 60 --scales 20 --batches 5 --patterns 4-clique,4-cycle --counters
bench pieces1024-nocounters 50 --scales 20 --batches 5 --patterns 4-clique,4-cycle --balance pieces1024 --no-counters
bench all-nocounters 50 --scales 20 --batches 5 --patterns 4-clique,4-cycle --no-counters
