#!/usr/bin/env bash
# Session 26, device call 6: hub bitmaps from degree 64 instead of 256 (the 4-clique 1.08-1.10x at
# 10^4 in calls 4 and 5) checked at 1,000 and 10^4 on the RMAT-20 4-clique, diamond and 4-cycle,
# and on the RMAT-18 house at 1,000, before it becomes the default.
set -u
bash .devbundle/install.sh >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD CUPY_CACHE_DIR=$PWD/.cupy-cache PYTHONUNBUFFERED=1 DM_COMMIT=$(cat .commit)
mkdir -p .cupy-cache && tar xzf .cupy-cache.tgz -C .cupy-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit $(cat .commit)"; date -u; } > $OUT/device.txt
t0=$(date +%s)
for run in "20 1000 3 4-clique,diamond,4-cycle" "20 10000 2 4-clique,diamond,4-cycle" "18 1000 2 house"; do
  set -- $run
  timeout 100 python3 -u bench/gpu/balance_sweep.py --scale $1 --batch $2 --batches $3 --repeats 5 \
    --patterns $4 --settings "hub128:HUB_MIN_DEGREE=128;hub64:HUB_MIN_DEGREE=64" > $OUT/sweep-hub-$1-$2.log 2>&1
  echo "== rmat:$1 batch $2: rc $? at $(( $(date +%s) - t0 )) s"
  grep -v "^batch" $OUT/sweep-hub-$1-$2.log
done
