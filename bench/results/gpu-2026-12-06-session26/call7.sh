#!/usr/bin/env bash
# Session 26, device call 7: issue 13's deletion rows again under the new defaults (hub bitmaps from
# degree 64; chunk costs bounded by the set for the 4-clique), and the hub bitmaps' GPU tests.
set -u
bash .devbundle/install.sh >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD CUPY_CACHE_DIR=$PWD/.cupy-cache PYTHONUNBUFFERED=1 DM_COMMIT=$(cat .commit)
mkdir -p .cupy-cache && tar xzf .cupy-cache.tgz -C .cupy-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit $(cat .commit)"; date -u; } > $OUT/device.txt
t0=$(date +%s)
timeout 60 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py tests/workers/test_cuda_backend.py -k "hub" > $OUT/gpu-tests-hub.log 2>&1
echo "tests rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/gpu-tests-hub.log
timeout 150 python3 bench/gpu/bench_gpu.py --out $OUT/deletions --ablation "" --no-counters --no-relabel --no-static \
  --scales 20,22 --sizes 1000,10000 --batches 2 --delete-fraction 0.1 --patterns 4-cycle,diamond,4-clique \
  --batch-budget 10 --static-budget 3 --cpu-limit 40 --cpu-when-gpu-under 12 --time-budget 135 > $OUT/bench-deletions.log 2>&1
echo "bench rc $? at $(( $(date +%s) - t0 )) s"
grep -A30 "^summary" $OUT/bench-deletions.log | cut -c1-200; grep -c MISMATCH $OUT/bench-deletions.log
(cd $OUT && tar czf deletions.tgz deletions && rm -rf deletions)
