#!/usr/bin/env bash
# Session 11, device call 4 (commit in .commit): last levels read from the kept triangles (the house's
# floor-edge plan, the diamond's outer-edge plans).  The GPU tests, the new ones first; then the house
# on RMAT-16 and RMAT-18 against the CPU engine with and without the kept triangles (ablation nokept),
# and one RMAT-20 house batch (call 3: 23.1 s without them).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DM_COMMIT=$(cat .commit)
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
s=$(date +%s)
timeout 215 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf tests/workers/test_triangle_table.py \
  tests/workers/test_cuda_backend.py tests/kernels/test_cuda_engine.py tests/scheduler/test_warmup.py > $OUT/gpu-tests.log 2>&1
echo "pytest rc $? after $(($(date +%s) - s)) s" >> $OUT/gpu-tests.log
grep -E "FAILED|ERROR|Error" $OUT/gpu-tests.log | head -20; tail -3 $OUT/gpu-tests.log
s=$(date +%s)
timeout 100 python3 bench/gpu/bench_gpu.py --out $OUT/small --scales 16,18 --sizes 1000 --batches 1 \
    --patterns house,diamond --ablation nokept --no-counters --batch-budget 30 --static-budget 5 \
    --cpu-limit 60 --cpu-when-gpu-under 30 --no-relabel --no-static --time-budget 90 > $OUT/bench-small.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-small.log
grep -vE "^\{" $OUT/bench-small.log | cut -c1-180 | head -30
s=$(date +%s)
timeout 60 python3 bench/gpu/bench_gpu.py --out $OUT/rmat20 --scales 20 --sizes 1000 --batches 1 \
    --patterns house --ablation "" --no-counters --batch-budget 40 --static-budget 1 --no-cpu \
    --no-relabel --no-static --time-budget 55 > $OUT/bench-20.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-20.log
grep -vE "^\{" $OUT/bench-20.log | cut -c1-180 | head -12
