#!/usr/bin/env bash
# Session 34, device call 1 cut to the 419 s left after failed starts (call1.sh in full): every
# build compiled, seed pieces on and off on RMAT-20 4-clique and 4-cycle batches of 1,000 with 10%
# deletions (their created/destroyed counts must agree), then the engine's GPU tests of seed pieces
# and of the memo (match_memo.cu) for what time is left.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 180 python3 bench/gpu/compile_builds.py > $OUT/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $OUT/compile.log
bench() {  # name, time limit, extra args
  timeout $2 python3 bench/gpu/bench_gpu.py --out $OUT/bench-$1 --ablation "" --no-relabel --no-counters \
    --no-static --no-cpu --sizes 1000 --batch-budget 10 --time-budget $(( $2 - 10 )) --delete-fraction 0.1 \
    --no-kept-triangles "${@:3}" > $OUT/bench-$1.log 2>&1
  echo "bench $1 rc $? at $(elapsed) s"; grep -E "^  batch" $OUT/bench-$1.log | cut -c1-100; grep -A4 "^summary" $OUT/bench-$1.log | cut -c1-160
}
bench pieces 65 --scales 20 --batches 4 --patterns 4-clique,4-cycle --balance pieces
bench nopieces 35 --scales 20 --batches 4 --patterns 4-clique,4-cycle
timeout $(( 385 - $(elapsed) )) python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py \
  -k "seed_pieces or memo" > $OUT/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(elapsed) s"; tail -3 $OUT/gpu-tests-engine.log; grep -E "^FAILED|Error" $OUT/gpu-tests-engine.log | head -10
