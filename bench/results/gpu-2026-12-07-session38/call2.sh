#!/usr/bin/env bash
# Session 38, call 2 (call 1's machine warm, or a fresh one: it compiles first).  Issue 19: Nsight
# Compute on every match launch of one RMAT-20 insert batch under 24, 28 and 32 warps an SM (warps
# active, lanes per instruction, each launch's time), then new joint batches under each again in
# the other order, and issue 13's 4-clique row with the recount beside it.
set -u
if [ "$(ls "$CUPY_CACHE_DIR" | wc -l)" -lt 10 ]; then
  timeout 250 python3 bench/gpu/compile_builds.py > $L/compile.log 2>&1
  echo "compile rc $? at $(elapsed) s"; tail -1 $L/compile.log
fi
M=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio
for balance in all warps28 warps32; do
  timeout 100 ncu --clock-control none --kernel-name regex:match_ --metrics $M python3 bench/gpu/ncu_batch.py \
    --scale 20 --size 1000 --patterns 4-clique,diamond,4-cycle --balances $balance > $L/ncu-1000-$balance.log 2>&1
  echo "ncu $balance rc $? at $(elapsed) s"
  grep -E "^(4-|diamond)|match_|duration|grid_size|block_size|registers|warps_active|thread_inst" \
    $L/ncu-1000-$balance.log | sed -E 's/ +/ /g' | cut -c1-120
done
for balance in warps32 warps28 all; do
  [ "$(elapsed)" -lt 470 ] && timeout 40 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 \
    --delete-fraction 0.1 --joint --patterns 4-clique,4-cycle --ab-reps 3 --pipeline 20 --pipeline-fresh \
    --pipeline-balances $balance > $L/timeline-fresh-$balance.log 2>&1
  echo "timeline $balance rc $? at $(elapsed) s"; grep -A6 "^pipeline" $L/timeline-fresh-$balance.log
done
[ "$(elapsed)" -lt 520 ] && timeout 70 python3 bench/gpu/bench_gpu.py --out $L/bench-4clique --ablation "" \
  --no-relabel --no-counters --no-static --sizes 1000 --batch-budget 20 --time-budget 60 --delete-fraction 0.1 \
  --no-kept-triangles --scales 20 --batches 3 --patterns 4-clique --pipelined > $L/bench-4clique.log 2>&1
echo "bench rc $? at $(elapsed) s"; grep -A3 "^summary" $L/bench-4clique.log | cut -c1-220
