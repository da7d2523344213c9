#!/usr/bin/env bash
# Session 10, device call 2: the GPU tests on the working tree (the `claim` build of call 1); then the
# head build (6ad3e6b's match.cu, which call 1 meant to run and did not: its file name was wrong) on
# the same sweep, beside the claim build once more.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0
{ date -u; echo "commit $(cat .commit) + working tree"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
timeout 330 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf -x tests/kernels/test_cuda_engine.py \
  tests/workers/test_cuda_backend.py tests/scheduler/test_warmup.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc $?" >> $OUT/gpu-tests.log
tail -4 $OUT/gpu-tests.log
SETTINGS="nosteal:steal=0"
cp deltamatch/kernels/match.cu variants/match-claim.cu
for build in 6ad3e6b claim; do
  cp variants/match-$build.cu deltamatch/kernels/match.cu
  for scale in 20 22; do
    timeout 70 python3 bench/gpu/balance_sweep.py --scale $scale --batch 1000 --batches 3 --repeats 3 \
      --settings "$SETTINGS" > $OUT/sweep-$build-$scale.log 2>&1; echo "sweep rc $?" >> $OUT/sweep-$build-$scale.log
    echo "== $build rmat:$scale"; grep -v "^batch\|rmat:" $OUT/sweep-$build-$scale.log
  done
done
