#!/usr/bin/env bash
# Session 9, device call 3: the seed-swap test in its committed form; then the load-balance thresholds
# swept on the same RMAT-20 and RMAT-22 batches of 1,000 inserts (bench/gpu/balance_sweep.py); then the
# same default setting with match.cu compiled for 4 resident blocks per SM (64 registers: match_tasks
# spills 72 bytes and match_shared 120, nvcc's count) instead of 3 (80 registers): an experiment on
# the device copy only (sed), to learn whether occupancy pays for the spills.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
timeout 120 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf -k "swapped or swap0" tests/kernels/test_cuda_engine.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc $?" >> $OUT/gpu-tests.log
SETTINGS="defer512:defer_cost=512;defer8k:defer_cost=8192;share512:share_pairs=512;share8k:share_pairs=8192;chunks2:AUTO_CHUNK_SHARE=2;chunks8:AUTO_CHUNK_SHARE=8;nofill:fill=0;nosteal:steal=0"
for scale in 20 22; do
  timeout 150 python3 bench/gpu/balance_sweep.py --scale $scale --batch 1000 --batches 3 --repeats 3 --settings "$SETTINGS" > $OUT/sweep-$scale.log 2>&1; echo "sweep rc $?" >> $OUT/sweep-$scale.log
done
sed -i 's/^#define DM_MIN_BLOCKS 3$/#define DM_MIN_BLOCKS 4/' deltamatch/kernels/match.cu
grep -n "^#define DM_MIN_BLOCKS" deltamatch/kernels/match.cu > $OUT/blocks4.log
for scale in 20 22; do
  timeout 120 python3 bench/gpu/balance_sweep.py --scale $scale --batch 1000 --batches 3 --repeats 3 >> $OUT/blocks4.log 2>&1; echo "blocks4 rc $?" >> $OUT/blocks4.log
done
head -2 $OUT/device.txt; tail -3 $OUT/gpu-tests.log
cat $OUT/sweep-20.log $OUT/sweep-22.log $OUT/blocks4.log | grep -v "^batch"
