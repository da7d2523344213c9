#!/usr/bin/env bash
# Session 14, device call 1, run as DEVCHECK_STEPS=script DEVCHECK_SCRIPT=<this> scripts/device-check.sh:
# the GPU tests of the engine and the backend (copy_rows a thread per entry; the deadline tests of
# session 13, never run), the graph update's kernels (timeline.py; session 13's call 1 for before),
# and the kernel's own counters at AUTO_CHUNK_SHARE 64 (#19; session 13's call 8 got nothing).
set -u
s=$(date +%s)
timeout 330 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf tests/kernels/test_cuda_engine.py \
  tests/workers/test_cuda_backend.py > $OUT/gpu-tests.log 2>&1
echo "pytest rc $? after $(($(date +%s) - s)) s" >> $OUT/gpu-tests.log
grep -E "FAILED|ERROR" $OUT/gpu-tests.log | head -20; tail -2 $OUT/gpu-tests.log
s=$(date +%s)
timeout 70 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 4 --patterns 4-clique > $OUT/timeline.log 2>&1
echo "timeline rc $? after $(($(date +%s) - s)) s" >> $OUT/timeline.log
grep -A3 -E "update:" $OUT/timeline.log; tail -1 $OUT/timeline.log
s=$(date +%s)
timeout 150 python3 bench/gpu/bench_gpu.py --out $OUT/counters --scales 20 --sizes 1000 --batches 2 \
    --patterns 4-clique,4-cycle,diamond --ablation "" --counters --batch-budget 10 --static-budget 1 --no-cpu \
    --no-relabel --no-static --time-budget 140 > $OUT/bench-counters.log 2>&1
echo "counters rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-counters.log
grep -E "batch|rc" $OUT/bench-counters.log | cut -c1-260
