#!/usr/bin/env bash
# Session 5, device call 4 (529ff7b): the GPU tests of the kernels and workers, static triangles by
# their own kernel, and where a CUDA worker's first batch of a size spends its extra time.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data DM_COMMIT=529ff7b
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; } > $OUT/device.txt
timeout 60 python3 bench/gpu/static_bench.py --out $OUT/static --graphs wiki-Vote,email-Enron,rmat:20 --patterns triangle --ablation no-clique-kernels --ablation-graphs wiki-Vote,email-Enron,rmat:20 --ablation-patterns triangle --repeats 3 --budget 8 > $OUT/gpu-static.log 2>&1
CUPY_CACHE_DIR=$(mktemp -d) CUPY_CACHE_SAVE_CUDA_SOURCE=1 timeout 70 python3 bench/gpu/first_batch.py --rounds 2 > $OUT/first-batch.log 2>&1
timeout 220 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -x tests/kernels/test_cuda_engine.py tests/workers/test_cuda_backend.py > $OUT/gpu-tests.log 2>&1; echo "rc $?" >> $OUT/gpu-tests.log
tail -3 $OUT/gpu-tests.log
