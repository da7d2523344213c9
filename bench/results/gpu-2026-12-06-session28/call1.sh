#!/usr/bin/env bash
# Session 28, device call 1 (run by scripts/device-check.sh's script step, after its compile step
# into a fresh cache): every GPU test on the kernels as they are (flat_below parity cases, the new
# unroll_min_k rule: 4-vertex patterns split alone by default), then the rule against unrolling every
# k (allk4, the old default) on the same batches, three runs a setting in turn.
set -u
t0=$(date +%s)
timeout 150 python3 -m pytest -q -m gpu -p no:cacheprovider -x tests/kernels/test_cuda_engine.py > $OUT/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/gpu-tests-engine.log
timeout 80 python3 -m pytest -q -m gpu -p no:cacheprovider tests/workers/test_cuda_backend.py tests/workers/test_triangle_table.py \
  tests/bench/test_rmat.py tests/scheduler/test_warmup.py tests/test_api.py > $OUT/gpu-tests-rest.log 2>&1
echo "rest tests rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/gpu-tests-rest.log
for run in "20 1000 2 4-clique,diamond,4-cycle 40" "22 10000 1 4-cycle,4-clique,diamond 45"; do
  set -- $run
  timeout $5 python3 -u bench/gpu/balance_sweep.py --scale $1 --batch $2 --batches $3 --repeats 3 \
    --patterns $4 --settings "allk4:unroll_min_k=4" > $OUT/sweep-mink-$1-$2.log 2>&1
  echo "== rmat:$1 batch $2: rc $? at $(( $(date +%s) - t0 )) s"
  grep -v "^batch" $OUT/sweep-mink-$1-$2.log
done
