#!/usr/bin/env bash
# Session 12, device call 5 (commit in .commit: ddb6bce): hub first for the warp's matched vertices only (not a
# lane's own candidate), against the build without it (nohubfirst): the house on RMAT-20 (call 1's
# follow-up: 26.0 s against 23.1 s with hub first everywhere), the 4-cycle and 4-clique on RMAT-20 and
# RMAT-22; then the GPU tests of the kernels.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DM_COMMIT=$(cat .commit)
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
s=$(date +%s)
timeout 110 python3 bench/gpu/bench_gpu.py --out $OUT/cycles --scales 20,22 --sizes 1000,10000 --batches 2 \
    --patterns 4-cycle,4-clique --ablation nohubfirst --no-counters --batch-budget 10 --static-budget 1 \
    --no-cpu --no-relabel --no-static --time-budget 100 > $OUT/bench-cycles.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-cycles.log
grep -E "nohubfirst|rc|MISMATCH" $OUT/bench-cycles.log | cut -c1-110; grep -A8 "^summary" $OUT/bench-cycles.log | cut -c1-60
s=$(date +%s)
timeout 75 python3 bench/gpu/bench_gpu.py --out $OUT/house20 --scales 20 --sizes 1000 --batches 1 \
    --patterns house --ablation nohubfirst --no-counters --batch-budget 40 --static-budget 1 --no-cpu \
    --no-relabel --no-static --time-budget 70 > $OUT/bench-house20.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-house20.log
grep -E "batch|rc" $OUT/bench-house20.log | cut -c1-110
s=$(date +%s)
timeout 150 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf tests/kernels/test_cuda_engine.py \
  tests/workers/test_triangle_table.py > $OUT/gpu-tests.log 2>&1
echo "pytest rc $? after $(($(date +%s) - s)) s" >> $OUT/gpu-tests.log
grep -E "FAILED|ERROR|Error" $OUT/gpu-tests.log | head -20; tail -3 $OUT/gpu-tests.log
