#!/usr/bin/env bash
# Session 38, call 1.  Carry [".devbundle", ".commit"]; DEADLINE (s, default 580): when the call's
# limit falls (the device budget was down to 509 s after failed starts), each step is fitted in.
# The match kernels' registers cut (the warp's clock, match sum, task and chunk kept in its shared
# state, a published list's prefix written a word a lane, statistics compiled out where no build
# reads them) and Balance.warps_per_sm (24 default; 28, blocks of 4 warps capped at 72 registers,
# where nvcc here fits match_tasks, match_shared and match_memo in 61, 64 and 63, so 32 warps an SM
# hold them; 32, 64 registers, spills): the three builds compiled, whole new batches under 24 and
# 28 (each in a process of its own: interleaved, CuPy's pool would serve one with the other's
# scratch), the engine GPU tests of those builds (the launch-size test, the 28 and 32 parity cases,
# the default's batches, joint counts, sharing, pieces, memo, hubs), then 32's batches and Nsight
# Compute of the 28 build in the time left.
set -u
D=${DEADLINE:-580}
timeout 200 python3 bench/gpu/compile_builds.py --balances all,warps28,warps32 > $L/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $L/compile.log
python3 - <<'PY'
from deltamatch.kernels import cuda_engine as e
for w in (24, 28, 32):
    d = e.Balance(warps_per_sm=w).defines()
    for f in ("match_tasks", "match_shared", "match_pieces", "match_memo"):
        k = e.kernel(e.match_unit(f), f, defines=d)
        print(f"warps_per_sm {w} {f}: {k.num_regs} registers, "
              f"{e.resident_blocks(f, e.match_unit(f), defines=d)} blocks of {e.block_warps(d)} warps")
PY
fresh() {
  timeout 40 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 \
    --delete-fraction 0.1 --joint --patterns 4-clique,4-cycle --ab-reps 3 --pipeline 20 --pipeline-fresh \
    --pipeline-balances $1 > $L/timeline-fresh-$1.log 2>&1
  echo "timeline $1 rc $? at $(elapsed) s"; grep -A6 "^pipeline" $L/timeline-fresh-$1.log
}
fresh all
fresh warps28
timeout $((D - 60 - $(elapsed))) python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py \
  -k "warps or mixed_batches or counted_joint or idle_warps or seed_pieces or memo_counts or hub_bitmaps" \
  > $L/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(elapsed) s"; tail -2 $L/gpu-tests-engine.log; grep -E "^FAILED" $L/gpu-tests-engine.log | head
[ "$(elapsed)" -lt $((D - 50)) ] && fresh warps32
# Issue 19's figures: Nsight Compute on every match launch of one RMAT-20 insert batch of 1,000
# under the 28 build (warps active, lanes per instruction; the default's: session 37).
M=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio
[ "$(elapsed)" -lt $((D - 70)) ] && timeout $((D - 5 - $(elapsed))) ncu --clock-control none \
  --kernel-name regex:match_ --metrics $M python3 bench/gpu/ncu_batch.py --scale 20 --size 1000 \
  --patterns 4-clique,diamond,4-cycle --balances warps28 > $L/ncu-1000-warps28.log 2>&1
echo "ncu rc $? at $(elapsed) s"
grep -E "^(4-|diamond)|match_|duration|grid_size|block_size|registers|warps_active|thread_inst" \
  $L/ncu-1000-warps28.log | sed -E 's/ +/ /g' | cut -c1-120
