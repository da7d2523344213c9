#!/usr/bin/env bash
# Session 14, device call 5 (through device-check.sh's "script" step, .cupy-cache carried from
# call 4): where the graph update's 1.1 ms of wall goes when its kernels take 0.1 ms
# (timeline.py --host-profile: the update over further batches under cProfile), then RMAT-22 at
# 10^5 with 10% deletions against the CPU engine (#13 asks for it; never run).
s=$(date +%s)
timeout 90 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --patterns 4-clique --host-profile 20 --top 14 > $OUT/timeline.log 2>&1
echo "timeline rc $? after $(($(date +%s) - s)) s" >> $OUT/timeline.log
grep -A40 "^host update" $OUT/timeline.log | cut -c1-160; tail -1 $OUT/timeline.log
s=$(date +%s)
timeout 330 python3 bench/gpu/bench_gpu.py --out $OUT/big22 --scales 22 --sizes 100000 --batches 1 --delete-fraction 0.1 --patterns 4-clique,diamond,4-cycle --ablation "" --no-counters --batch-budget 30 --static-budget 5 --cpu-limit 90 --cpu-when-gpu-under 30 --no-relabel --no-static --time-budget 320 > $OUT/bench-big22.log 2>&1
echo "bench rc $? after $(($(date +%s) - s)) s" >> $OUT/bench-big22.log
grep -vE "^\{" $OUT/bench-big22.log | cut -c1-220 | tail -20
