#!/usr/bin/env bash
# Session 27, device call 6: the engine's GPU tests on dynamic unrolling (Balance.flat_below,
# default 32 pairs a candidate; flatbelow parity cases among them), then it against every list
# flat (0, the old default) and no unrolling at all, the same batches five times a setting in turn.
# match.cu changed: its builds are compiled first, into a fresh cache.
set -u
bash .devbundle/install.sh >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD CUPY_CACHE_DIR=$PWD/.cupy-cache PYTHONUNBUFFERED=1 DM_COMMIT=$(cat .commit)
rm -rf .cupy-cache && mkdir -p .cupy-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit $(cat .commit)"; date -u; } > $OUT/device.txt
t0=$(date +%s)
timeout 170 python3 bench/gpu/compile_builds.py --jobs 15 > $OUT/compile.log 2>&1
echo "compile rc $? at $(( $(date +%s) - t0 )) s"; tail -1 $OUT/compile.log
timeout 110 python3 -m pytest -q -m gpu -p no:cacheprovider -x tests/kernels/test_cuda_engine.py > $OUT/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/gpu-tests-engine.log
for run in "20 1000 2 4-clique,diamond,4-cycle 35" "20 10000 2 4-clique,diamond,4-cycle 35" "18 1000 1 house 40" "22 10000 1 4-cycle,4-clique 35"; do
  set -- $run
  timeout $5 python3 -u bench/gpu/balance_sweep.py --scale $1 --batch $2 --batches $3 --repeats 3 \
    --patterns $4 --settings "flat0:flat_below=0;split:unroll=0,steal=0" > $OUT/sweep-flat-$1-$2.log 2>&1
  echo "== rmat:$1 batch $2: rc $? at $(( $(date +%s) - t0 )) s"
  grep -v "^batch" $OUT/sweep-flat-$1-$2.log
done
