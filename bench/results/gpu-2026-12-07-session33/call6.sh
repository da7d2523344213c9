#!/usr/bin/env bash
# Session 33, device call 6 (call 5 cut to the device time left after failed starts): seed pieces.
# The CPU engine's numba functions compile in the background while the benchmark compiles the four
# match.cu builds it and the tests use; RMAT-20 batches of 1,000 with 10% deletions, joint, the
# 4-clique and the 4-cycle with the kernel's counters, pieces on and then off (--balance nopieces,
# the graph loaded again from the same start); the GPU tests of seed pieces; the service end to
# end; RMAT-22's 4-clique both ways if time is left.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
python3 -c "import sys; sys.path.insert(0, 'bench/gpu'); from compile_builds import compile_cpu_engine; compile_cpu_engine()" \
  > $OUT/numba.log 2>&1 &
numba=$!
bench() {  # name, time limit, extra args
  timeout $2 python3 bench/gpu/bench_gpu.py --out $OUT/bench-$1 --ablation "" --no-relabel \
    --no-static --no-cpu --sizes 1000 --batch-budget 10 --time-budget $(( $2 - 10 )) --delete-fraction 0.1 \
    --no-kept-triangles "${@:3}" > $OUT/bench-$1.log 2>&1
  echo "bench $1 rc $? at $(elapsed) s"; grep -E "^  batch" $OUT/bench-$1.log | cut -c1-90,120-230; grep -A4 "^summary" $OUT/bench-$1.log | cut -c1-160
}
bench pieces 150 --scales 20 --batches 5 --patterns 4-clique,4-cycle
bench nopieces 35 --scales 20 --batches 5 --patterns 4-clique,4-cycle --balance nopieces
wait $numba; echo "numba at $(elapsed) s"
timeout 100 python3 -m pytest -q -x -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py -k "seed_pieces or short_host or full_arena" > $OUT/gpu-tests-pieces.log 2>&1
echo "pieces tests rc $? at $(elapsed) s"; tail -3 $OUT/gpu-tests-pieces.log
timeout 40 python3 bench/gpu/service_e2e.py > $OUT/service-e2e.log 2>&1
echo "e2e rc $? at $(elapsed) s"; grep -v "logging.cc" $OUT/service-e2e.log | tail -2
if [ "$(elapsed)" -lt 250 ]; then
  bench pieces22 40 --scales 22 --batches 4 --patterns 4-clique --no-counters
  bench nopieces22 40 --scales 22 --batches 4 --patterns 4-clique --no-counters --balance nopieces
fi
