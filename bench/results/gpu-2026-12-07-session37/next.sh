#!/usr/bin/env bash
# Written in session 37, NOT RUN (the budget was spent): the next session's first call.  Carry
# [".devbundle", ".commit"].  Four blocks an SM (Balance.blocks_per_sm, opt-in) again, now that a
# launch is sized by its own build (call 3 launched the four-block build at three blocks' size):
# its GPU tests (the launch-size test never ran), then whole new batches with 3 and 4 blocks, each
# in a process of its own (their scratch sizes differ: interleaved, CuPy's pool serves both), the
# 4-clique alone then the 4-clique and 4-cycle; then issue 13's 4-clique row with the recount beside
# it (--pipelined, one pattern), and prefetch_next on the three-pattern batch (8.5% in call 2).
# device-check.sh's script step gives it $L (its logs folder) and `elapsed`.
set -u
timeout 260 python3 bench/gpu/compile_builds.py > $L/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $L/compile.log
timeout 60 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py \
  -k "four_block or blocks4" > $L/gpu-tests.log 2>&1
echo "tests rc $? at $(elapsed) s"; tail -1 $L/gpu-tests.log; grep -E "^FAILED" $L/gpu-tests.log | head
for balance in all blocks4; do
  timeout 45 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
    --patterns 4-clique,4-cycle --ab-reps 3 --pipeline 20 --pipeline-fresh --pipeline-balances $balance \
    > $L/timeline-fresh-$balance.log 2>&1
  echo "timeline $balance rc $? at $(elapsed) s"; grep -A6 "^pipeline" $L/timeline-fresh-$balance.log
done
timeout 70 python3 bench/gpu/bench_gpu.py --out $L/bench-4clique --ablation "" --no-relabel --no-counters \
  --no-static --sizes 1000 --batch-budget 20 --time-budget 60 --delete-fraction 0.1 \
  --no-kept-triangles --scales 20 --batches 3 --patterns 4-clique --pipelined > $L/bench-4clique.log 2>&1
echo "bench rc $? at $(elapsed) s"; grep -A3 "^summary" $L/bench-4clique.log | cut -c1-220
[ "$(elapsed)" -lt 480 ] && timeout 80 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 \
  --delete-fraction 0.1 --joint --patterns 4-clique,diamond,4-cycle --ab-reps 3 --pipeline 20 --pipeline-fresh \
  --pipeline-balances all,prefetch > $L/timeline-prefetch.log 2>&1
echo "prefetch rc $? at $(elapsed) s"; grep -A7 "^pipeline" $L/timeline-prefetch.log
