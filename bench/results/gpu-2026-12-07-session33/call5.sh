#!/usr/bin/env bash
# Session 33, device call 5: seed pieces (Balance.seed_pieces: the level-2 sets of seeds whose
# endpoints both have degree 4,096 or more built by 32 warps each, match.cu: match_pieces and
# gather_pieces, before phase 0).  match.cu's builds compiled, the GPU tests of seed pieces
# (test_seed_pieces_count_as_the_cpu_engine and the host-order tests), then RMAT-20 batches of
# 1,000 with 10% deletions, joint, pieces on and off on the same batches (--balance nopieces loads
# the graph again from the same start), the 4-clique and the 4-cycle with the kernel's counters;
# the service end to end (the bundle rebuilt with fastapi-offline); RMAT-22's 4-clique if time is
# left.  Trimmed to the device time left after failed starts.
set -u
t0=$(date +%s)
touch /tmp/call-start
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 200 python3 bench/gpu/compile_builds.py > $OUT/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $OUT/compile.log
timeout 120 python3 -m pytest -q -x -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py -k "seed_pieces or short_host or full_arena" > $OUT/gpu-tests-pieces.log 2>&1
echo "pieces tests rc $? at $(elapsed) s"; tail -3 $OUT/gpu-tests-pieces.log
bench() {  # name, time limit, extra args
  timeout $2 python3 bench/gpu/bench_gpu.py --out $OUT/bench-$1 --ablation "" --no-relabel \
    --no-static --no-cpu --sizes 1000 --batch-budget 10 --time-budget $(( $2 - 10 )) --delete-fraction 0.1 \
    --no-kept-triangles "${@:3}" > $OUT/bench-$1.log 2>&1
  echo "bench $1 rc $? at $(elapsed) s"; grep -E "^  batch" $OUT/bench-$1.log | cut -c1-90,120-230; grep -A4 "^summary" $OUT/bench-$1.log | cut -c1-160
}
bench pieces 35 --scales 20 --batches 5 --patterns 4-clique,4-cycle
bench nopieces 35 --scales 20 --batches 5 --patterns 4-clique,4-cycle --balance nopieces
timeout 40 python3 bench/gpu/service_e2e.py > $OUT/service-e2e.log 2>&1
echo "e2e rc $? at $(elapsed) s"; grep -v "logging.cc" $OUT/service-e2e.log | tail -2
if [ "$(elapsed)" -lt 320 ]; then
  bench pieces22 45 --scales 22 --batches 4 --patterns 4-clique --no-counters
  bench nopieces22 45 --scales 22 --batches 4 --patterns 4-clique --no-counters --balance nopieces
fi
find "$CUPY_CACHE_DIR" -type f ! -newer /tmp/call-start -delete  # the old builds: the cache comes back small
