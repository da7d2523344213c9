#!/usr/bin/env bash
# Session 26, device call 1: the GPU tests of test_cuda_engine (setcost's parity among them) and
# the chunk-cost estimate capped at the level-2 set's length (Balance.cost_by_set) swept at 1,000.
set -u
bash .devbundle/install.sh >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD CUPY_CACHE_DIR=$PWD/.cupy-cache PYTHONUNBUFFERED=1
mkdir -p .cupy-cache && tar xzf .cupy-cache.tgz -C .cupy-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit $(cat .commit)"; date -u; } > $OUT/device.txt
timeout 120 python3 -u bench/gpu/balance_sweep.py --scale 20 --batch 1000 --batches 2 \
  --patterns 4-clique,diamond,4-cycle --counters \
  --settings "setcost:cost_by_set=1;setcost256:cost_by_set=1,AUTO_CHUNK_SHARE=256" > $OUT/sweep-setcost.log 2>&1
timeout 100 python3 -u bench/gpu/balance_sweep.py --scale 20 --batch 10000 --batches 1 \
  --patterns 4-clique,diamond,4-cycle --settings "setcost:cost_by_set=1" > $OUT/sweep-setcost-10k.log 2>&1
timeout 250 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py -x > $OUT/gpu-tests-engine.log 2>&1
tail -3 $OUT/gpu-tests-engine.log
tar czf $OUT/cupy-cache.tgz -C .cupy-cache .
grep -v "^batch" $OUT/sweep-setcost.log | tail -30; tail -20 $OUT/sweep-setcost-10k.log
