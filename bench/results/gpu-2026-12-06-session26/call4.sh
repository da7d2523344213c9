#!/usr/bin/env bash
# Session 26, device call 4: the 4-cycle at 10^4 (8.4-8.9x the CPU engine with deletions, call 3)
# against the hub bitmaps' least degree and the balance thresholds; then the GPU test files that
# call 2 did not run (the backend, the kept triangles, RMAT, the warm-up, the API).
set -u
bash .devbundle/install.sh >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD CUPY_CACHE_DIR=$PWD/.cupy-cache PYTHONUNBUFFERED=1 DM_COMMIT=$(cat .commit)
mkdir -p .cupy-cache && tar xzf .cupy-cache.tgz -C .cupy-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit $(cat .commit)"; date -u; } > $OUT/device.txt
t0=$(date +%s)
timeout 170 python3 -u bench/gpu/balance_sweep.py --scale 20 --batch 10000 --batches 2 --repeats 2 \
  --patterns 4-cycle,4-clique,diamond \
  --settings "hub128:HUB_MIN_DEGREE=128;hub64:HUB_MIN_DEGREE=64;hub32:HUB_MIN_DEGREE=32;share8k:share_pairs=8192;share512:share_pairs=512;defer8k:defer_cost=8192;chunk16:AUTO_CHUNK_SHARE=16;chunk256:AUTO_CHUNK_SHARE=256" > $OUT/sweep-10k.log 2>&1
echo "sweep rc $? at $(( $(date +%s) - t0 )) s"
grep -v "^batch . done" $OUT/sweep-10k.log | tail -40
left=$(( 540 - ($(date +%s) - t0) ))
timeout $left python3 -m pytest -q -m gpu -p no:cacheprovider tests/workers/test_cuda_backend.py \
  tests/workers/test_triangle_table.py tests/bench/test_rmat.py tests/scheduler/test_warmup.py tests/test_api.py > $OUT/gpu-tests-rest.log 2>&1
echo "tests rc $? at $(( $(date +%s) - t0 )) s"
tail -5 $OUT/gpu-tests-rest.log
