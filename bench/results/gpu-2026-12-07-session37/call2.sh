#!/usr/bin/env bash
# Session 37, call 2 (from session 36's next-2.sh): issue 13's table with --pipelined (RMAT-20,
# 1,000 and 10^4 with 10% deletions, the CPU engine beside), the 4-clique's joint count's step clock
# (the host steps of a count, callees included), issue 19's register experiment (below), and the
# repeated batch's pipeline for three patterns if time is left.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
L=$OUT/logs  # a folder: device-check.sh packs it into outputs.tgz (loose files past a count are lost)
mkdir -p $L
# A fresh machine (not call 1's, warm) compiles every build first, in parallel processes.
if [ "$(ls "$CUPY_CACHE_DIR" | wc -l)" -lt 10 ]; then
  timeout 200 python3 bench/gpu/compile_builds.py > $L/compile.log 2>&1
  echo "compile rc $? at $(elapsed) s"; tail -1 $L/compile.log
fi
timeout 195 python3 bench/gpu/bench_gpu.py --out $L/bench-table --ablation "" --no-relabel --no-counters \
  --no-static --sizes 1000,10000 --batch-budget 20 --time-budget 190 --delete-fraction 0.1 \
  --no-kept-triangles --scales 20 --batches 3 --patterns 4-clique,diamond,4-cycle --pipelined \
  > $L/bench-table.log 2>&1
echo "bench rc $? at $(elapsed) s"; grep -A8 "^summary" $L/bench-table.log | cut -c1-200
timeout 80 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique --step-clock 20 > $L/step-clock.log 2>&1
echo "step clock rc $? at $(elapsed) s"; grep -A30 "^step clock" $L/step-clock.log | cut -c1-160
M=gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio
# Issue 19: the match kernels at three blocks an SM (78-80 registers, at most 24 of 64 warps)
# against four (64 registers, 32 warps: the 50% goal), where nvcc here reports match_tasks spilling
# 244 bytes and match_shared 344; the header edited on the device copy only (NVRTC builds it anew).
for blocks in 3 4; do
  sed -i "s/^#define DM_MIN_BLOCKS [0-9]*$/#define DM_MIN_BLOCKS $blocks/" deltamatch/kernels/match_body.cuh
  grep -n "^#define DM_MIN_BLOCKS " deltamatch/kernels/match_body.cuh
  for size in 1000 10000; do
    patterns=$([ $size = 1000 ] && echo 4-clique,diamond,4-cycle || echo 4-cycle)
    timeout 110 ncu --clock-control none --kernel-name regex:match_ --metrics $M python3 bench/gpu/ncu_batch.py \
      --scale 20 --size $size --patterns $patterns --balances all > $L/ncu-$size-blocks$blocks.log 2>&1
    echo "ncu $size blocks $blocks rc $? at $(elapsed) s"
    grep -E "^(4-|diamond)|match_|duration|grid_size|registers|warps_active|thread_inst" \
      $L/ncu-$size-blocks$blocks.log | sed -E 's/ +/ /g' | cut -c1-120
  done
  timeout 80 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
    --patterns 4-clique,4-cycle --ab-reps 3 --pipeline 20 --pipeline-flush --pipeline-balances all \
    > $L/timeline-blocks$blocks.log 2>&1
  echo "timeline blocks $blocks rc $? at $(elapsed) s"; grep -A5 "^pipeline" $L/timeline-blocks$blocks.log
done
# Last, only with time left in the call: the repeated batch, three patterns, three balances.
[ "$(elapsed)" -lt 430 ] && timeout 100 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique,diamond,4-cycle --ab-reps 5 --pipeline 20 --pipeline-balances all,prefetch,nopieces \
  > $L/timeline.log 2>&1
echo "timeline rc $? at $(elapsed) s"; grep -A7 "^pipeline" $L/timeline.log
