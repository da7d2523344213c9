#!/usr/bin/env bash
# Session 32, device call 2 (on call 1's warm machine): the deletion rows against the CPU engine on
# the device host's 16 threads with the sides counted jointly (the service's default now): RMAT-20,
# 10% deletions, batches of 1,000 and 10^4, the 4-clique, the diamond and the 4-cycle, three
# batches a cell, the CPU engine's least time of two runs per side (it counts each side on its own
# graph, as before).
set -u
t0=$(date +%s)
touch /tmp/call-start
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 400 python3 bench/gpu/bench_gpu.py --out $OUT/bench-cpu --ablation "" --no-counters --no-relabel \
  --no-static --cpu --cpu-repeats 2 --sizes 1000,10000 --batches 3 --scales 20 \
  --patterns 4-clique,diamond,4-cycle --delete-fraction 0.1 --sides joint \
  --batch-budget 10 --time-budget 380 > $OUT/bench-cpu.log 2>&1
echo "bench cpu rc $? at $(elapsed) s"; grep -A12 "^summary" $OUT/bench-cpu.log | cut -c1-160
