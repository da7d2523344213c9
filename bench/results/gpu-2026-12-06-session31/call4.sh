#!/usr/bin/env bash
# Session 31, device call 4: the GPU against the CPU engine on the device host's 16 threads (the
# same tasks) on RMAT-20 at 1,000 inserts, the 4-clique, the diamond and the 4-cycle,
# three batches a cell, with the kernels' counters (lanes, per-warp busy spread) and the recounts.
set -u
t0=$(date +%s)
timeout 130 python3 bench/gpu/bench_gpu.py --out $OUT/bench-cpu --ablation "" --no-relabel --no-static \
  --scales 20 --sizes 1000 --batches 3 --patterns 4-clique,diamond,4-cycle --cpu-when-gpu-under 5 \
  --batch-budget 10 --time-budget 100 > $OUT/bench-cpu.log 2>&1
echo "bench rc $? at $(( $(date +%s) - t0 )) s"; grep -A12 "^summary" $OUT/bench-cpu.log | cut -c1-170
