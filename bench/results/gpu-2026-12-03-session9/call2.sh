#!/usr/bin/env bash
# Session 9, device call 2: call 1's GPU tests ran out of their 250 s at 96% on a cold machine (no
# failure); here all of them again with more time, then where a 1,000-edge RMAT-20 batch's GPU wall
# time goes now (bench/gpu/timeline.py: kernels, idle host time, and the host functions under cProfile).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
s=$(date +%s); timeout 340 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf tests/kernels/test_cuda_engine.py tests/workers/test_cuda_backend.py tests/scheduler/test_warmup.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc $? after $(($(date +%s) - s)) s" >> $OUT/gpu-tests.log
timeout 170 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --patterns 4-clique,diamond,4-cycle --host-profile 15 > $OUT/timeline.log 2>&1
echo "timeline rc $?" >> $OUT/timeline.log
head -2 $OUT/device.txt
grep -v "^\.*\s*\[" $OUT/gpu-tests.log | tail -8
cut -c1-160 $OUT/timeline.log | tail -120
