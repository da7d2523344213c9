#!/usr/bin/env bash
# Session 26, device call 2: match.cu's builds and the CPU engine's numba functions compiled first
# (call 1 spent its limits compiling), then the 1,000-edge setcost sweep with counters and the GPU
# tests of test_cuda_engine.  The numba cache comes back packed for the next call.
set -u
bash .devbundle/install.sh >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD CUPY_CACHE_DIR=$PWD/.cupy-cache PYTHONUNBUFFERED=1
mkdir -p .cupy-cache && tar xzf .cupy-cache.tgz -C .cupy-cache
[ -f .numba-cache.tgz ] && tar xzf .numba-cache.tgz
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit $(cat .commit)"; date -u; } > $OUT/device.txt
t0=$(date +%s)
timeout 230 python3 -u bench/gpu/compile_builds.py --jobs 14 > $OUT/compile.log 2>&1
echo "compile $(( $(date +%s) - t0 )) s"; tail -3 $OUT/compile.log
timeout 130 python3 -u bench/gpu/balance_sweep.py --scale 20 --batch 1000 --batches 2 \
  --patterns 4-clique,diamond,4-cycle --counters \
  --settings "setcost:cost_by_set=1;setcost256:cost_by_set=1,AUTO_CHUNK_SHARE=256" > $OUT/sweep-setcost.log 2>&1
echo "sweep $(( $(date +%s) - t0 )) s"
left=$(( 585 - ($(date +%s) - t0) ))
timeout $left python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py -x > $OUT/gpu-tests-engine.log 2>&1
tail -3 $OUT/gpu-tests-engine.log
tar czf $OUT/cupy-cache.tgz -C .cupy-cache .
find deltamatch -name '*.nbi' -o -name '*.nbc' | tar czf $OUT/numba-cache.tgz -T -
grep -v "^batch" $OUT/sweep-setcost.log | tail -30
