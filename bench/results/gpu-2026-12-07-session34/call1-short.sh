#!/usr/bin/env bash
# Session 34, device call 1 cut to the device time left after failed starts (call1.sh in full):
# every build compiled, the engine's GPU tests of seed pieces, the memo (match_memo.cu) and joint
# batches, then seed pieces on and off on RMAT-20 4-clique and 4-cycle batches of 1,000 with 10%
# deletions (their created/destroyed counts must agree), and the 4-clique's batches also timed as a
# whole (--pipelined) if time is left.
set -u
t0=$(date +%s)
touch /tmp/call-start
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 190 python3 bench/gpu/compile_builds.py > $OUT/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $OUT/compile.log
timeout 110 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py \
  -k "seed_pieces or memo or joint or short_host or full_arena" > $OUT/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(elapsed) s"; tail -3 $OUT/gpu-tests-engine.log; grep -E "^FAILED|Error" $OUT/gpu-tests-engine.log | head -10
bench() {  # name, time limit, extra args
  timeout $2 python3 bench/gpu/bench_gpu.py --out $OUT/bench-$1 --ablation "" --no-relabel --no-counters \
    --no-static --no-cpu --sizes 1000 --batch-budget 10 --time-budget $(( $2 - 10 )) --delete-fraction 0.1 \
    --no-kept-triangles "${@:3}" > $OUT/bench-$1.log 2>&1
  echo "bench $1 rc $? at $(elapsed) s"; grep -E "^  batch" $OUT/bench-$1.log | cut -c1-100; grep -A4 "^summary" $OUT/bench-$1.log | cut -c1-160
}
bench pieces 75 --scales 20 --batches 5 --patterns 4-clique,4-cycle --balance pieces
bench nopieces 40 --scales 20 --batches 5 --patterns 4-clique,4-cycle
if [ "$(elapsed)" -lt 420 ]; then
  bench pipelined 45 --scales 20 --batches 5 --patterns 4-clique --pipelined
fi
find "$CUPY_CACHE_DIR" -type f ! -newer /tmp/call-start -delete
