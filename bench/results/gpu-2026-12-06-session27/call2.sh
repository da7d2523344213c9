#!/usr/bin/env bash
# Session 27, device call 2: the batch's changed-pair filter (Balance.pair_filter, on by default)
# against no filter on the same batches (balance_sweep, inserts): RMAT-20 at 1,000 and 10^4 for
# the 4-clique, diamond and 4-cycle, RMAT-22 at 10^4 for the 4-cycle, RMAT-18 house at 1,000.
# match.cu changed: its builds are compiled first, into a fresh cache.
set -u
bash .devbundle/install.sh >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD CUPY_CACHE_DIR=$PWD/.cupy-cache PYTHONUNBUFFERED=1 DM_COMMIT=$(cat .commit)
rm -rf .cupy-cache && mkdir -p .cupy-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit $(cat .commit)"; date -u; } > $OUT/device.txt
t0=$(date +%s)
timeout 200 python3 bench/gpu/compile_builds.py --jobs 15 > $OUT/compile.log 2>&1
echo "compile rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/compile.log
for run in "20 1000 3 4-clique,diamond,4-cycle 100" "20 10000 2 4-clique,diamond,4-cycle 100" "22 10000 2 4-cycle 90" "18 1000 2 house 70"; do
  set -- $run
  timeout $5 python3 -u bench/gpu/balance_sweep.py --scale $1 --batch $2 --batches $3 --repeats 5 \
    --patterns $4 --settings "nofilter:pair_filter=0" > $OUT/sweep-filter-$1-$2.log 2>&1
  echo "== rmat:$1 batch $2: rc $? at $(( $(date +%s) - t0 )) s"
  grep -v "^batch" $OUT/sweep-filter-$1-$2.log
done
tar czf $OUT/cupy-cache.tgz -C .cupy-cache . && ls -la $OUT/cupy-cache.tgz
