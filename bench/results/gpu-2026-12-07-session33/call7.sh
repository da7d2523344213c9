#!/usr/bin/env bash
# Session 33, device call 7 (what 311 s of device time left allows): seed pieces on real hub seeds.
# RMAT-20 batches of 1,000 with 10% deletions, joint, the 4-clique and the 4-cycle, pieces on and
# then off on the same batches (--balance nopieces, the graph loaded again from the same start):
# every batch's created and destroyed counts must agree between the two logs.  The CPU engine's
# numba functions compile in the background for the GPU tests of seed pieces, run if time is left.
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
bench pieces 110 --scales 20 --batches 5 --patterns 4-clique,4-cycle
bench nopieces 30 --scales 20 --batches 5 --patterns 4-clique,4-cycle --balance nopieces
wait; echo "numba at $(elapsed) s"
timeout $(( 200 - $(elapsed) )) python3 -m pytest -q -x -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py -k "seed_pieces and 4-clique" > $OUT/gpu-tests-pieces.log 2>&1
echo "pieces tests rc $? at $(elapsed) s"; tail -3 $OUT/gpu-tests-pieces.log
