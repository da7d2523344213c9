#!/usr/bin/env bash
# Session 9, device call 1: seeds reversed on the GPU (PlanTable.seed_swap, match.cu swap_seeds): every
# GPU test of the kernels, workers and warm-up (the new swap tests and the balance matrix's swap-off
# entries included), then RMAT-20 and RMAT-22 batches of 1,000 and 10^4 inserts with the swap (default)
# and without it (`--ablation noswap`).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
s=$(date +%s); timeout 250 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf -x tests/kernels/test_cuda_engine.py tests/workers/test_cuda_backend.py tests/scheduler/test_warmup.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc $? after $(($(date +%s) - s)) s" >> $OUT/gpu-tests.log
timeout 270 python3 bench/gpu/bench_gpu.py --out $OUT --scales 20,22 --sizes 1000,10000 --batches 2 \
    --patterns 4-cycle,diamond,4-clique,house --ablation noswap --no-counters --batch-budget 5 --static-budget 3 \
    --cpu-limit 20 --cpu-when-gpu-under 6 --no-relabel --no-static --time-budget 250 > $OUT/gpu-bench.log 2>&1
echo "bench rc $?" >> $OUT/gpu-bench.log
head -2 $OUT/device.txt
grep -v "^\.*\s*\[" $OUT/gpu-tests.log | tail -12
grep -E "^RMAT|  batch|summary|^  (20|22) |rc|MISMATCH|recount" $OUT/gpu-bench.log | cut -c1-170 | head -80
