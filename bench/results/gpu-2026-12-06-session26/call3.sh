#!/usr/bin/env bash
# Session 26, device call 3: match.cu's builds compiled into a fresh cache (so that it comes back
# under 16 MB), the 4-clique's chunk costs bounded by the set now on by default where the plans
# allow (swept against `nosetcost`), and issue 13's deletion rows: RMAT-20 and RMAT-22, batches of
# 1,000 and 10^4 with 10% deletions, the 4-cycle, diamond and 4-clique against the CPU engine.
set -u
bash .devbundle/install.sh >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD CUPY_CACHE_DIR=$PWD/.cupy-cache PYTHONUNBUFFERED=1
rm -rf .cupy-cache && mkdir -p .cupy-cache
[ -f .numba-cache.tgz ] && tar xzf .numba-cache.tgz
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit $(cat .commit)"; date -u; } > $OUT/device.txt
t0=$(date +%s)
timeout 200 python3 -u bench/gpu/compile_builds.py --jobs 15 > $OUT/compile.log 2>&1
echo "compile $(( $(date +%s) - t0 )) s"; tail -2 $OUT/compile.log
timeout 100 python3 -u bench/gpu/balance_sweep.py --scale 20 --batch 1000 --batches 2 \
  --patterns 4-clique --counters --settings "nosetcost:cost_by_set=0" > $OUT/sweep-setcost.log 2>&1
echo "sweep $(( $(date +%s) - t0 )) s"
grep -v "^batch . done" $OUT/sweep-setcost.log | cut -c1-260
left=$(( 560 - ($(date +%s) - t0) ))
timeout $left python3 bench/gpu/bench_gpu.py --out $OUT/deletions --ablation "" --no-counters --no-relabel --no-static \
  --scales 20,22 --sizes 1000,10000 --batches 2 --delete-fraction 0.1 --patterns 4-cycle,diamond,4-clique \
  --batch-budget 10 --static-budget 3 --cpu-limit 40 --cpu-when-gpu-under 12 --time-budget $(( left - 25 )) > $OUT/bench-deletions.log 2>&1
echo "bench rc $? at $(( $(date +%s) - t0 )) s"
grep -A30 "^summary" $OUT/bench-deletions.log | cut -c1-200; grep -c MISMATCH $OUT/bench-deletions.log
tar czf $OUT/cupy-cache.tgz -C .cupy-cache .
find deltamatch -name '*.nbi' -o -name '*.nbc' | tar czf $OUT/numba-cache.tgz -T -
(cd $OUT && tar czf deletions.tgz deletions && rm -rf deletions)
ls -la $OUT
