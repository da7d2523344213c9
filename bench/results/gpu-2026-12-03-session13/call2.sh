#!/usr/bin/env bash
# Session 13, device call 2 (commit in .commit): fewer host waits around a match run (one counters
# read after phase 0, the chunk target on the device, phase 1 through the sort's order, a deadline
# without a launch). The GPU tests of the engine and the backend, the host profile again (call 1
# for before), and the #13 table: RMAT-20 and RMAT-22, 1,000 and 10^4, against the CPU engine.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DM_COMMIT=$(cat .commit)
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
s=$(date +%s)
timeout 200 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf -x tests/kernels/test_cuda_engine.py \
  tests/workers/test_cuda_backend.py > $OUT/gpu-tests.log 2>&1
echo "pytest rc $? after $(($(date +%s) - s)) s" >> $OUT/gpu-tests.log
grep -E "FAILED|ERROR|Error" $OUT/gpu-tests.log | head -20; tail -3 $OUT/gpu-tests.log
s=$(date +%s)
timeout 100 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --patterns 4-cycle,4-clique \
    --host-profile 5 --top 10 > $OUT/timeline.log 2>&1
echo "timeline rc $? after $(($(date +%s) - s)) s" >> $OUT/timeline.log
grep -E "^(steady|host)|rc " $OUT/timeline.log
s=$(date +%s)
timeout 240 python3 bench/gpu/bench_gpu.py --out $OUT/table --scales 20,22 --sizes 1000,10000 --batches 3 \
    --patterns 4-cycle,diamond,4-clique --ablation "" --no-counters --batch-budget 10 --static-budget 3 \
    --cpu-limit 30 --cpu-when-gpu-under 12 --no-relabel --no-static --time-budget 230 > $OUT/bench-table.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-table.log
grep -vE "^\{" $OUT/bench-table.log | grep -E "^RMAT|summary|^  (20|22) |rc|MISMATCH|recount" | cut -c1-200 | head -40
