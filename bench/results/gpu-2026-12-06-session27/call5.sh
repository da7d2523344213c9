#!/usr/bin/env bash
# Session 27, device call 5: call 4's single readings had splitting alone (no unrolling, no
# stealing) 1.2-1.8x faster than the default on RMAT-20 batches; the same batches five times a
# setting in turn (balance_sweep): split = unroll and steal off, unroll = steal off.
set -u
bash .devbundle/install.sh >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD CUPY_CACHE_DIR=$PWD/.cupy-cache PYTHONUNBUFFERED=1 DM_COMMIT=$(cat .commit)
mkdir -p .cupy-cache && tar xzf .cupy-cache.tgz -C .cupy-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit $(cat .commit)"; date -u; } > $OUT/device.txt
t0=$(date +%s)
for run in "20 1000 3 4-clique,diamond,4-cycle 100" "20 10000 2 4-clique,diamond,4-cycle 120" "22 10000 2 4-cycle,4-clique 110" "18 1000 1 house 60"; do
  set -- $run
  timeout $5 python3 -u bench/gpu/balance_sweep.py --scale $1 --batch $2 --batches $3 --repeats 5 \
    --patterns $4 --settings "split:unroll=0,steal=0;unroll:steal=0" > $OUT/sweep-balance-$1-$2.log 2>&1
  echo "== rmat:$1 batch $2: rc $? at $(( $(date +%s) - t0 )) s"
  grep -v "^batch" $OUT/sweep-balance-$1-$2.log
done
