#!/usr/bin/env bash
# Session 30, device call 2 (the chunk order's counting sort over the whole grid, after call 1
# found the one-block sort at 2.6 ms): match.cu's builds compiled; every GPU test of the engine;
# issue 13's recount ratio at 1,000 on RMAT-20 (the 4-clique and the diamond, five batches a cell,
# GPU only), inserts; the GPU tests outside the engine's file; the same ratio with 10% deletions.
set -u
t0=$(date +%s)
timeout 200 python3 bench/gpu/compile_builds.py > $OUT/compile.log 2>&1
echo "compile rc $? at $(( $(date +%s) - t0 )) s"; tail -1 $OUT/compile.log
timeout 140 python3 -m pytest -q -m gpu -p no:cacheprovider --maxfail=3 tests/kernels/test_cuda_engine.py > $OUT/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(( $(date +%s) - t0 )) s"; tail -3 $OUT/gpu-tests-engine.log | cut -c1-300
for dels in 0 rest 0.1; do
  if [ $dels = rest ]; then
    timeout 60 python3 -m pytest -q -m gpu -p no:cacheprovider tests/workers/test_cuda_backend.py tests/workers/test_triangle_table.py \
      tests/bench/test_rmat.py tests/scheduler/test_warmup.py tests/test_api.py > $OUT/gpu-tests-rest.log 2>&1
    echo "other GPU tests rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/gpu-tests-rest.log | cut -c1-300
    continue
  fi
  timeout 80 python3 bench/gpu/bench_gpu.py --out $OUT/bench-$dels --ablation "" --no-counters --no-relabel \
    --no-static --no-cpu --scales 20 --sizes 1000 --batches 5 --delete-fraction $dels --patterns diamond,4-clique \
    --batch-budget 10 --time-budget 70 > $OUT/bench-$dels.log 2>&1
  echo "bench dels $dels rc $? at $(( $(date +%s) - t0 )) s"; grep -A4 "^summary" $OUT/bench-$dels.log | cut -c1-160
done
