#!/usr/bin/env bash
# Session 27, device call 3: every GPU test on the pair filter's kernels (filter0 parity cases among
# them), then issue 13's deletion rows under it, the CPU engine's least time of two runs.
set -u
bash .devbundle/install.sh >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD CUPY_CACHE_DIR=$PWD/.cupy-cache PYTHONUNBUFFERED=1 DM_COMMIT=$(cat .commit)
mkdir -p .cupy-cache && tar xzf .cupy-cache.tgz -C .cupy-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit $(cat .commit)"; date -u; } > $OUT/device.txt
t0=$(date +%s)
timeout 200 python3 -m pytest -q -m gpu -p no:cacheprovider -x tests/kernels/test_cuda_engine.py > $OUT/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/gpu-tests-engine.log
timeout 200 python3 -m pytest -q -m gpu -p no:cacheprovider tests/workers/test_cuda_backend.py tests/workers/test_triangle_table.py \
  tests/bench/test_rmat.py tests/scheduler/test_warmup.py tests/test_api.py > $OUT/gpu-tests-rest.log 2>&1
echo "rest tests rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/gpu-tests-rest.log
timeout 170 python3 bench/gpu/bench_gpu.py --out $OUT/deletions --ablation "" --no-counters --no-relabel \
  --no-static --scales 20,22 --sizes 1000,10000 --batches 2 --delete-fraction 0.1 --patterns 4-cycle,diamond,4-clique \
  --batch-budget 10 --static-budget 3 --cpu-limit 40 --cpu-when-gpu-under 12 --cpu-repeats 2 \
  --time-budget 160 > $OUT/bench-deletions.log 2>&1
echo "bench rc $? at $(( $(date +%s) - t0 )) s"
grep -A30 "^summary" $OUT/bench-deletions.log | cut -c1-220; grep -c MISMATCH $OUT/bench-deletions.log
(cd $OUT && tar czf deletions.tgz deletions && rm -rf deletions)
