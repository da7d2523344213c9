#!/usr/bin/env bash
# Seed pieces (Balance.seed_pieces, off by default) on real hub seeds: written in session 33, NOT RUN
# (no device time was left).  RMAT-20 batches of 1,000 with 10% deletions, joint, the 4-clique and
# the 4-cycle, pieces on (--balance pieces) and then off on the same batches (the graph loaded again
# from the same start): every batch's created and destroyed counts must agree between the two logs.
# The CPU engine's numba functions compile in the background for the GPU tests of seed pieces.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
python3 -c "import sys; sys.path.insert(0, 'bench/gpu'); from compile_builds import compile_cpu_engine; compile_cpu_engine()" \
  > $OUT/numba.log 2>&1 &
bench() {  # name, time limit, extra args
  timeout $2 python3 bench/gpu/bench_gpu.py --out $OUT/bench-$1 --ablation "" --no-relabel --no-counters \
    --no-static --no-cpu --sizes 1000 --batch-budget 10 --time-budget $(( $2 - 10 )) --delete-fraction 0.1 \
    --no-kept-triangles "${@:3}" > $OUT/bench-$1.log 2>&1
  echo "bench $1 rc $? at $(elapsed) s"; grep -E "^  batch" $OUT/bench-$1.log | cut -c1-100; grep -A4 "^summary" $OUT/bench-$1.log | cut -c1-160
}
bench pieces 110 --scales 20 --batches 5 --patterns 4-clique,4-cycle --balance pieces
bench nopieces 30 --scales 20 --batches 5 --patterns 4-clique,4-cycle
wait; echo "numba at $(elapsed) s"
timeout 150 python3 -m pytest -q -x -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py -k "seed_pieces or short_host or full_arena" > $OUT/gpu-tests-pieces.log 2>&1
echo "pieces tests rc $? at $(elapsed) s"; tail -3 $OUT/gpu-tests-pieces.log
