#!/usr/bin/env bash
# Session 31, device call 1: session 30's tree (never run on a device) with this session's host
# path -- the chunk order by a counting sort on the device (deferred_chunk_order), the kept
# triangles' two sides planned in one numba call each, uploaded in the update's copy and settled by
# one read, kernel lookups memoized, a short task list's heavy-first order packed with the tasks in
# one numba call.  match.cu's builds compiled, every GPU test (the rest first:
# the triangle table's), issue 13's recount ratio at 1,000 on RMAT-20 (the 4-clique and the
# diamond, inserts and 10% deletions, five batches a cell, GPU only), the step clock of a count and
# an update, and each count with the device's chunk order and the packed task order on and off
# (timeline.py --ab).  The CuPy
# cache is trimmed to this call's builds so that it comes back under the 16 MiB a file may.
set -u
t0=$(date +%s)
touch /tmp/call-start
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 200 python3 bench/gpu/compile_builds.py > $OUT/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $OUT/compile.log
timeout 70 python3 -m pytest -q -m gpu -p no:cacheprovider tests/workers/test_triangle_table.py tests/workers/test_cuda_backend.py \
  tests/bench/test_rmat.py tests/scheduler/test_warmup.py tests/test_api.py > $OUT/gpu-tests-rest.log 2>&1
echo "rest tests rc $? at $(elapsed) s"; tail -2 $OUT/gpu-tests-rest.log
timeout 150 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py > $OUT/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(elapsed) s"; tail -3 $OUT/gpu-tests-engine.log
bench() {  # name, extra args
  timeout 60 python3 bench/gpu/bench_gpu.py --out $OUT/bench-$1 --ablation "" --no-counters --no-relabel \
    --no-static --no-cpu --scales 20 --sizes 1000 --batches 5 --patterns diamond,4-clique \
    --batch-budget 10 --time-budget 50 "${@:2}" > $OUT/bench-$1.log 2>&1
  echo "bench $1 rc $? at $(elapsed) s"; grep -A4 "^summary" $OUT/bench-$1.log | cut -c1-160
}
bench ins
bench del --delete-fraction 0.1
if [ "$(elapsed)" -lt 480 ]; then
  timeout 60 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --patterns 4-clique,diamond \
    --kept-triangles --step-clock 30 --ab DEVICE_CHUNK_ORDER,PACKED_TASK_ORDER --ab-reps 30 > $OUT/timeline.log 2>&1
  echo "timeline rc $? at $(elapsed) s"
  grep -E "^(steady|step|switch)|^ +[0-9.]+ +x" $OUT/timeline.log | head -90
fi
find "$CUPY_CACHE_DIR" -type f ! -newer /tmp/call-start -delete  # the old builds: the cache comes back small
