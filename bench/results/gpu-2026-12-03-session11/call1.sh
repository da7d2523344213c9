#!/usr/bin/env bash
# Session 11, device call 1 (commit in .commit): every GPU test (kernels, device graph with the kept
# hub bitmaps and the new kept triangles, replicas, routing, warm-up, the RMAT generator, the API),
# then a first look at the diamond's batches from kept triangles on RMAT-20 (1,000 and 10^4 inserts).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DM_COMMIT=$(cat .commit)
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
s=$(date +%s)
timeout 400 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf tests/workers/test_triangle_table.py \
  tests/kernels/test_cuda_engine.py tests/workers/test_cuda_backend.py tests/scheduler/test_warmup.py tests/bench/test_rmat.py \
  tests/test_api.py > $OUT/gpu-tests.log 2>&1
echo "pytest rc $? after $(($(date +%s) - s)) s" >> $OUT/gpu-tests.log
grep -E "FAILED|ERROR|Error" $OUT/gpu-tests.log | head -30; tail -3 $OUT/gpu-tests.log
s=$(date +%s)
timeout 150 python3 bench/gpu/bench_gpu.py --out $OUT/diamond --scales 20 --sizes 1000,10000 --batches 2 \
    --patterns diamond --ablation "" --no-counters --batch-budget 10 --static-budget 3 \
    --cpu-limit 30 --cpu-when-gpu-under 12 --no-relabel --no-static --time-budget 130 > $OUT/bench-diamond.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-diamond.log
grep -vE "^\{" $OUT/bench-diamond.log | cut -c1-200 | head -40
