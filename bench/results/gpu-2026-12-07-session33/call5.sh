#!/usr/bin/env bash
# Session 33, device call 5: seed pieces (Balance.seed_pieces: the level-2 sets of seeds whose
# endpoints both have degree 4,096 or more built by 32 warps each, match.cu: match_pieces and
# gather_pieces, before phase 0).  match.cu's builds compiled, the engine's GPU tests (the new
# test_seed_pieces_count_as_the_cpu_engine among them), then RMAT-20 batches of 1,000 with 10%
# deletions, joint, pieces on and off on the same batches (--balance nopieces runs the graph again
# from the same start), the 4-clique and the 4-cycle, with the kernel's counters; RMAT-22's
# 4-clique; then the service end to end (the bundle rebuilt with fastapi-offline), and the rest of
# the engine's GPU tests if time is left.
set -u
t0=$(date +%s)
touch /tmp/call-start
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 200 python3 bench/gpu/compile_builds.py > $OUT/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $OUT/compile.log
timeout 170 python3 -m pytest -q -x -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py -k "seed_pieces or short_host or full_arena" > $OUT/gpu-tests-pieces.log 2>&1
echo "pieces tests rc $? at $(elapsed) s"; tail -3 $OUT/gpu-tests-pieces.log
bench() {  # name, time limit, extra args
  timeout $2 python3 bench/gpu/bench_gpu.py --out $OUT/bench-$1 --ablation "" --no-relabel \
    --no-static --no-cpu --sizes 1000 --batch-budget 10 --time-budget $(( $2 - 10 )) --delete-fraction 0.1 \
    --no-kept-triangles "${@:3}" > $OUT/bench-$1.log 2>&1
  echo "bench $1 rc $? at $(elapsed) s"; grep -E "^  batch" $OUT/bench-$1.log | cut -c1-90,120-230; grep -A4 "^summary" $OUT/bench-$1.log | cut -c1-160
}
bench pieces 40 --scales 20 --batches 5 --patterns 4-clique,4-cycle
bench nopieces 40 --scales 20 --batches 5 --patterns 4-clique,4-cycle --balance nopieces
bench pieces22 50 --scales 22 --batches 4 --patterns 4-clique --no-counters
bench nopieces22 50 --scales 22 --batches 4 --patterns 4-clique --no-counters --balance nopieces
timeout 45 python3 bench/gpu/service_e2e.py > $OUT/service-e2e.log 2>&1
echo "e2e rc $? at $(elapsed) s"; grep -v "logging.cc" $OUT/service-e2e.log | tail -2
if [ "$(elapsed)" -lt 330 ]; then
  timeout 130 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py -k "not seed_pieces" > $OUT/gpu-tests-engine.log 2>&1
  echo "engine tests rc $? at $(elapsed) s"; tail -2 $OUT/gpu-tests-engine.log
fi
find "$CUPY_CACHE_DIR" -type f ! -newer /tmp/call-start -delete  # the old builds: the cache comes back small
