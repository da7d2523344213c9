#!/usr/bin/env bash
# Session 7, device call 3: hub bitmaps and the statistics-free build of match.cu.
#  1. GPU tests: CUDA engine parity (the new hub-bitmap tests among them), the backend, the warm-up;
#  2. bench_gpu.py, rmat:20 and rmat:22, 1,000 and 10^4 inserts, two batches each: the default
#     (hub bitmaps on) against the same batch without them (--ablation nohub), the CPU engine on 16
#     threads beside them; timed on the service's build (no statistics, --no-counters).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 DELTAMATCH_DATA=$PWD/data DM_COMMIT=$(cat .commit)
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
s=$(date +%s); timeout 230 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf -x tests/kernels/test_cuda_engine.py tests/workers/test_cuda_backend.py tests/scheduler/test_warmup.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc $? after $(($(date +%s) - s)) s" >> $OUT/gpu-tests.log
timeout 200 python3 bench/gpu/bench_gpu.py --out $OUT --scales 20,22 --sizes 1000,10000 --batches 2 \
    --patterns 4-clique,diamond,4-cycle,house --ablation nohub --no-counters --batch-budget 5 --static-budget 3 \
    --cpu-limit 20 --cpu-when-gpu-under 6 --no-relabel --no-static --time-budget 170 > $OUT/gpu-bench.log 2>&1
echo "bench rc $?" >> $OUT/gpu-bench.log
head -2 $OUT/device.txt
grep -v "^\.*\s*\[" $OUT/gpu-tests.log | tail -15
grep -E "^RMAT|  batch|summary|^  (20|22) |rc|MISMATCH|recount" $OUT/gpu-bench.log | cut -c1-170 | head -70
