#!/usr/bin/env bash
# Session 32, device call 1: the joint count (a batch's removal and insertion tasks in one run on
# G_old ∪ I, match.cu: ranked_out; DeviceBatch.joint; GraphReplica.joint_sides).  match.cu's builds
# compiled, the engine's GPU tests, then issue 13's recount ratio at 1,000 on RMAT-20 with
# 10% deletions, the sides joint and apart on the same batches (bench_gpu.py --sides joint,apart;
# five batches a cell, GPU only): the 4-clique alone without kept triangles (the deletions' update
# queued behind its count), then the diamond and the 4-clique with them (session 31's setting),
# the other GPU tests, RMAT-22's 4-clique, and the 4-cycle and the house (three batches) if time is left.  The CuPy cache is trimmed to this
# call's builds so that it comes back under the 16 MiB a file may.
set -u
t0=$(date +%s)
touch /tmp/call-start
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 200 python3 bench/gpu/compile_builds.py > $OUT/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $OUT/compile.log
timeout 170 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py > $OUT/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(elapsed) s"; tail -3 $OUT/gpu-tests-engine.log
bench() {  # name, time limit, extra args
  timeout $2 python3 bench/gpu/bench_gpu.py --out $OUT/bench-$1 --ablation "" --no-counters --no-relabel \
    --no-static --no-cpu --sizes 1000 \
    --batch-budget 10 --time-budget $(( $2 - 10 )) --delete-fraction 0.1 --sides joint,apart "${@:3}" > $OUT/bench-$1.log 2>&1
  echo "bench $1 rc $? at $(elapsed) s"; grep -A8 "^summary" $OUT/bench-$1.log | cut -c1-160
}
bench clique 60 --scales 20 --batches 5 --patterns 4-clique --no-kept-triangles
bench kept 60 --scales 20 --batches 5 --patterns diamond,4-clique
timeout 70 python3 -m pytest -q -m gpu -p no:cacheprovider tests/workers/test_triangle_table.py tests/workers/test_cuda_backend.py \
  tests/bench/test_rmat.py tests/scheduler/test_warmup.py tests/test_api.py > $OUT/gpu-tests-rest.log 2>&1
echo "rest tests rc $? at $(elapsed) s"; tail -2 $OUT/gpu-tests-rest.log
bench clique22 80 --scales 22 --batches 5 --patterns 4-clique --no-kept-triangles
if [ "$(elapsed)" -lt 450 ]; then
  bench cycle 90 --scales 20 --batches 3 --patterns 4-cycle,house
fi
find "$CUPY_CACHE_DIR" -type f ! -newer /tmp/call-start -delete  # the old builds: the cache comes back small
