#!/usr/bin/env bash
# Session 37, call 3 (the budget's last): Balance.blocks_per_sm (new; 4: the match kernels at 64
# registers) compiled with every build, the tests call 1 could not pass (its counted-joint test
# loaded two graphs) and blocks_per_sm 4's parity tests; then the RMAT-20 4-clique at 1,000 with
# 10% deletions: issue 13's table row (--pipelined, the recount beside it), and new batches' joint
# pipeline with 3 and 4 blocks an SM interleaved.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
L=$OUT/logs  # a folder: device-check.sh packs it into outputs.tgz (loose files past a count are lost)
mkdir -p $L
timeout 200 python3 bench/gpu/compile_builds.py > $L/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $L/compile.log
timeout 70 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py \
  -k "counted_joint or read_ahead or blocks4" > $L/gpu-tests.log 2>&1
echo "tests rc $? at $(elapsed) s"; tail -1 $L/gpu-tests.log; grep -E "^FAILED" $L/gpu-tests.log | head
timeout 50 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique,4-cycle --ab-reps 3 --pipeline 20 --pipeline-fresh --pipeline-balances all,blocks4 \
  > $L/timeline-blocks.log 2>&1
echo "timeline rc $? at $(elapsed) s"; grep -A6 "^pipeline" $L/timeline-blocks.log
[ "$(elapsed)" -lt 250 ] && timeout 70 python3 bench/gpu/bench_gpu.py --out $L/bench-4clique --ablation "" --no-relabel --no-counters \
  --no-static --sizes 1000 --batch-budget 20 --time-budget 60 --delete-fraction 0.1 \
  --no-kept-triangles --scales 20 --batches 3 --patterns 4-clique --pipelined > $L/bench-4clique.log 2>&1
echo "bench rc $? at $(elapsed) s"; grep -A3 "^summary" $L/bench-4clique.log | cut -c1-220
