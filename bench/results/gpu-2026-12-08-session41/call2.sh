#!/usr/bin/env bash
# Session 41, call 2.  Carry [".devbundle", ".commit", ".numba-cache.tgz"]; DEADLINE (s, default 580).
# Issue 19's lanes per instruction: DM_STAGED_LOOKUPS (Balance.staged_lookups, opt-in, bench
# `staged`) queues a set's candidates that passed the adjacency checks and makes their changed-pair
# lookups 32 at a time (they ran at 7.4 lanes of 32).  NVRTC 13.0 here: match_tasks 68 registers
# (28 warps an SM, against 32), match_shared 71, match_memo 64.  The default and staged compiled;
# Nsight Compute on every match launch of one RMAT-20 insert batch of 1,000 under each; the staged1
# parity cases and the mixed batches (the default build, passes() split in two); new joint batches
# in turn all/staged/staged/all.
set -u
D=${DEADLINE:-580}
timeout 170 python3 bench/gpu/compile_builds.py --balances all,staged > $L/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $L/compile.log
M=gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum
for balance in all staged; do
  timeout 70 ncu --clock-control none --kernel-name regex:match_ --metrics $M python3 bench/gpu/ncu_batch.py \
    --scale 20 --size 1000 --patterns 4-clique,diamond,4-cycle --balances $balance > $L/ncu-1000-$balance.log 2>&1
  echo "ncu $balance rc $? at $(elapsed) s"
  grep -E "^(4-|diamond)|match_|duration|registers|warps_active|thread_inst|inst_executed.sum" \
    $L/ncu-1000-$balance.log | sed -E 's/ +/ /g' | cut -c1-100
done
timeout $((D - 110 - $(elapsed))) python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short \
  -k "staged1 or mixed_batches" tests/kernels/test_cuda_engine.py > $L/gpu-tests.log 2>&1
echo "tests rc $? at $(elapsed) s"; tail -2 $L/gpu-tests.log; grep -E "^FAILED" $L/gpu-tests.log | head
for balance in all staged staged all; do
  [ "$(elapsed)" -lt $((D - 25)) ] && timeout 25 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 \
    --delete-fraction 0.1 --joint --patterns 4-clique,4-cycle --ab-reps 3 --pipeline 20 --pipeline-fresh \
    --pipeline-balances $balance >> $L/timeline-joint-$balance.log 2>&1
  echo "timeline $balance rc $? at $(elapsed) s"; grep -A5 "^pipeline" $L/timeline-joint-$balance.log | tail -6
done
true
