#!/usr/bin/env bash
# Session 41, call 2.  Carry [".devbundle", ".commit", ".numba-cache.tgz"]; DEADLINE (s, default 580).
# Issue 19's lanes per instruction: DM_STAGED_LOOKUPS (Balance.staged_lookups, opt-in, bench
# `staged`) checks a batch task's set in two passes, the adjacency checks into scratch, then the
# changed-pair lookups over the candidates that passed, 32 at a time (they ran at 7.4 lanes of 32).
# NVRTC 13.0 here: match_tasks 66 registers (28 warps an SM, against 32), match_shared 72,
# match_memo 64.  The default and staged compiled;
# Nsight Compute on every match launch of one RMAT-20 insert batch of 1,000 under each; the staged1
# parity cases and the mixed batches (the default build, passes() split in two); new joint batches
# in turn all/staged/staged/all while time is left.
set -u
D=${DEADLINE:-580}
. bench/gpu/compare.sh
timeout $((D / 3)) python3 bench/gpu/compile_builds.py --balances all,staged > $L/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $L/compile.log
ncu_launches all staged
T=$((D - 60 - $(elapsed)))
[ $T -gt 10 ] && timeout $T python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short \
  -k "staged1 or mixed_batches" tests/kernels/test_cuda_engine.py > $L/gpu-tests.log 2>&1
echo "tests rc $? at $(elapsed) s"; tail -2 $L/gpu-tests.log; grep -E "^FAILED" $L/gpu-tests.log | head
joint_in_turn $D all staged staged all
true
