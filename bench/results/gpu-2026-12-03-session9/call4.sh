#!/usr/bin/env bash
# Session 9, device call 4: filling off by default now (call 3's sweep: 0.99-1.38x without it): the
# sweep again on RMAT-20 and RMAT-22 with filling as the setting to compare (and stealing off beside
# it), then the seed-swap tests in their committed form (call 3 ran out of its 120 s compiling).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
for scale in 20 22; do
  timeout 70 python3 bench/gpu/balance_sweep.py --scale $scale --batch 1000 --batches 3 --repeats 3 --settings "fill1:fill=1;nosteal:steal=0" > $OUT/sweep-$scale.log 2>&1; echo "sweep rc $?" >> $OUT/sweep-$scale.log
done
timeout 130 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf -k "swapped_seeds or test_fill_switch or idle_warps" tests/kernels/test_cuda_engine.py tests/workers/test_cuda_backend.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc $?" >> $OUT/gpu-tests.log
head -2 $OUT/device.txt; tail -3 $OUT/gpu-tests.log
cat $OUT/sweep-20.log $OUT/sweep-22.log | grep -v "^batch"
