#!/usr/bin/env bash
# Session 40, call 2.  Carry [".devbundle", ".commit", ".numba-cache.tgz"]; DEADLINE (s, default 580).
# Issue 19's lanes per instruction: call 1's source counters put 38% of the RMAT-20 4-cycle's warp
# instructions (longest launch, 1,000 inserts) in the changed-pair lookups, at 7.4 lanes of 32;
# DM_RANKED_TOUCHED (Balance.ranked_touched, on) drops, once for a set, the lookups against a
# matched vertex no changed pair touches.  The default and its off build (`notouched`) compiled;
# Nsight Compute on every match launch of one RMAT-20 insert batch of 1,000 under each (time, warps
# active, lanes per instruction); the engine's GPU parity tests that run batches (the default
# build) and the touched0 cases; new joint batches under the default and notouched.
set -u
D=${DEADLINE:-580}
timeout 200 python3 bench/gpu/compile_builds.py --balances all,notouched > $L/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $L/compile.log
M=gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum
for balance in all notouched; do
  timeout 60 ncu --clock-control none --kernel-name regex:match_ --metrics $M python3 bench/gpu/ncu_batch.py \
    --scale 20 --size 1000 --patterns 4-clique,diamond,4-cycle --balances $balance > $L/ncu-1000-$balance.log 2>&1
  echo "ncu $balance rc $? at $(elapsed) s"
  grep -E "^(4-|diamond)|match_|duration|registers|warps_active|thread_inst|inst_executed.sum" \
    $L/ncu-1000-$balance.log | sed -E 's/ +/ /g' | cut -c1-100
done
timeout $((D - 70 - $(elapsed))) python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short \
  -k "mixed_batches or counted_joint or skewed or touched0 or seed_pieces" \
  tests/kernels/test_cuda_engine.py > $L/gpu-tests.log 2>&1
echo "tests rc $? at $(elapsed) s"; tail -2 $L/gpu-tests.log; grep -E "^FAILED" $L/gpu-tests.log | head
for balance in all notouched; do
  [ "$(elapsed)" -lt $((D - 30)) ] && timeout 30 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 \
    --delete-fraction 0.1 --joint --patterns 4-clique,4-cycle --ab-reps 3 --pipeline 20 --pipeline-fresh \
    --pipeline-balances $balance > $L/timeline-joint-$balance.log 2>&1
  echo "timeline $balance rc $? at $(elapsed) s"; grep -A6 "^pipeline" $L/timeline-joint-$balance.log
done
true
