#!/usr/bin/env bash
# Written in session 34 as its call 1, NOT RUN in full (no machine came until 419 s were left:
# call1.sh ran a cut of it).  Every match.cu / match_memo.cu build compiled, then every engine GPU
# test (session 34 ran only the seed pieces' and the memo's: the rest have not run since match.cu
# was split in two units), then seed pieces on and off on RMAT-20 4-clique and 4-cycle batches of
# 1,000 with 10% deletions, then the 4-clique's batches timed as a whole (--pipelined).
set -u
t0=$(date +%s)
touch /tmp/call-start
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 200 python3 bench/gpu/compile_builds.py > $OUT/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $OUT/compile.log
timeout 170 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py > $OUT/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(elapsed) s"; tail -3 $OUT/gpu-tests-engine.log; grep -E "^FAILED|Error" $OUT/gpu-tests-engine.log | head -10
bench() {  # name, time limit, extra args
  timeout $2 python3 bench/gpu/bench_gpu.py --out $OUT/bench-$1 --ablation "" --no-relabel --no-counters \
    --no-static --no-cpu --sizes 1000 --batch-budget 10 --time-budget $(( $2 - 10 )) --delete-fraction 0.1 \
    --no-kept-triangles "${@:3}" > $OUT/bench-$1.log 2>&1
  echo "bench $1 rc $? at $(elapsed) s"; grep -E "^  batch" $OUT/bench-$1.log | cut -c1-100; grep -A4 "^summary" $OUT/bench-$1.log | cut -c1-160
}
bench pieces 90 --scales 20 --batches 5 --patterns 4-clique,4-cycle --balance pieces
bench nopieces 45 --scales 20 --batches 5 --patterns 4-clique,4-cycle
if [ "$(elapsed)" -lt 510 ]; then
  bench pipelined 55 --scales 20 --batches 5 --patterns 4-clique --pipelined
fi
find "$CUPY_CACHE_DIR" -type f ! -newer /tmp/call-start -delete
