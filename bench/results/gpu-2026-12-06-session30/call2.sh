#!/usr/bin/env bash
# Session 30, device call 2: issue 13's recount ratio at 1,000 on RMAT-20 (the 4-clique and the
# diamond, inserts and 10% deletions, five batches a cell, GPU only), the session's start (old/,
# swapped in place) against this session's host path, one after the other on one machine; then
# the GPU tests outside the engine's file.
set -u
t0=$(date +%s)
for dels in 0 0.1; do
  for tree in old new; do
    if [ $tree = old ]; then mv deltamatch /tmp/deltamatch-new && cp -r old/deltamatch deltamatch; fi
    timeout 90 python3 bench/gpu/bench_gpu.py --out $OUT/bench-$tree-$dels --ablation "" --no-counters --no-relabel \
      --no-static --no-cpu --scales 20 --sizes 1000 --batches 5 --delete-fraction $dels --patterns diamond,4-clique \
      --batch-budget 10 --time-budget 80 > $OUT/bench-$tree-$dels.log 2>&1
    echo "bench $tree dels $dels rc $? at $(( $(date +%s) - t0 )) s"
    if [ $tree = old ]; then rm -rf deltamatch && mv /tmp/deltamatch-new deltamatch; fi
    grep -A5 "^summary" $OUT/bench-$tree-$dels.log | cut -c1-160
  done
done
timeout 100 python3 -m pytest -q -m gpu -p no:cacheprovider tests/workers/test_cuda_backend.py tests/workers/test_triangle_table.py \
  tests/bench/test_rmat.py tests/scheduler/test_warmup.py tests/test_api.py > $OUT/gpu-tests-rest.log 2>&1
echo "other GPU tests rc $? at $(( $(date +%s) - t0 )) s"; tail -3 $OUT/gpu-tests-rest.log
