#!/usr/bin/env bash
# Session 12, device call 1 (commit in .commit): a matched hub's bitmap first (DM_HUB_FIRST) against
# the build without it (ablation nohubfirst), RMAT-20 and RMAT-22, the CPU engine on 16 threads over
# the same tasks; the house with its floor-edge plan's last level read from the kept triangles (k = 5
# served for this run only: KEPT_LAST_SIZES = (4, 5)) against the same batches without them (nokept),
# on RMAT-16/18 with the CPU engine and one RMAT-20 batch; then the GPU tests of the changed paths.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DM_COMMIT=$(cat .commit)
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
K5="import runpy, sys; import deltamatch.kernels.plan_table as t; t.KEPT_LAST_SIZES = (4, 5); sys.argv = ['bench_gpu.py'] + sys.argv[1:]; runpy.run_path('bench/gpu/bench_gpu.py', run_name='__main__')"
s=$(date +%s)
timeout 215 python3 bench/gpu/bench_gpu.py --out $OUT/hubfirst --scales 20,22 --sizes 1000,10000 --batches 2 \
    --patterns 4-cycle,diamond,4-clique --ablation nohubfirst --no-counters --batch-budget 10 --static-budget 3 \
    --cpu-limit 30 --cpu-when-gpu-under 12 --no-relabel --no-static --time-budget 200 > $OUT/bench-hubfirst.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-hubfirst.log
grep -E "^RMAT|kept|summary|^  (20|22) |rc|MISMATCH|recount|nohubfirst" $OUT/bench-hubfirst.log | cut -c1-200 | head -60
s=$(date +%s)
timeout 110 python3 -c "$K5" --out $OUT/house --scales 16,18 --sizes 1000 --batches 1 \
    --patterns house --ablation nokept,nohubfirst --no-counters --batch-budget 30 --static-budget 5 \
    --cpu-limit 60 --cpu-when-gpu-under 30 --no-relabel --no-static --time-budget 100 > $OUT/bench-house.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-house.log
grep -vE "^\{" $OUT/bench-house.log | cut -c1-180 | head -30
s=$(date +%s)
timeout 70 python3 -c "$K5" --out $OUT/house20 --scales 20 --sizes 1000 --batches 1 \
    --patterns house --ablation "" --no-counters --batch-budget 40 --static-budget 1 --no-cpu \
    --no-relabel --no-static --time-budget 65 > $OUT/bench-house20.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-house20.log
grep -vE "^\{" $OUT/bench-house20.log | cut -c1-180 | head -12
s=$(date +%s)
timeout 170 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf tests/workers/test_triangle_table.py \
  tests/kernels/test_cuda_engine.py tests/workers/test_cuda_backend.py > $OUT/gpu-tests.log 2>&1
echo "pytest rc $? after $(($(date +%s) - s)) s" >> $OUT/gpu-tests.log
grep -E "FAILED|ERROR|Error" $OUT/gpu-tests.log | head -20; tail -3 $OUT/gpu-tests.log
