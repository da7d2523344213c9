#!/usr/bin/env bash
# Session 38, call 1.  Carry [".devbundle", ".commit"].  The match kernels' registers cut (the warp's
# clock, match sum, task and chunk kept in its shared state, a published list's prefix written a word
# a lane, statistics compiled out where no build reads them) and Balance.warps_per_sm (24 default;
# 28, blocks of 4 warps capped at 72 registers, where nvcc here fits match_tasks and match_shared in
# 61 and 64, so 32 warps an SM hold them; 32, 64 registers, spills): the three builds compiled,
# whole new batches under each (each in a process of its own: interleaved, CuPy's pool would serve
# one with the other's scratch), then the engine GPU tests of those builds (the launch-size test,
# the 28 and 32 parity cases, the default's batches, joint counts, sharing, pieces, memo, hubs) in
# the time left.  (The device budget was down to 824 s after failed starts: one call must do.)
set -u
timeout 200 python3 bench/gpu/compile_builds.py --balances all,warps28,warps32 > $L/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $L/compile.log
python3 - <<'PY'
from deltamatch.kernels import cuda_engine as e
for w in (24, 28, 32):
    d = e.Balance(warps_per_sm=w).defines()
    for f in ("match_tasks", "match_shared", "match_pieces", "match_memo"):
        k = e.kernel(e.match_unit(f), f, defines=d)
        print(f"warps_per_sm {w} {f}: {k.num_regs} registers, {e.resident_blocks(f, e.match_unit(f), defines=d)} blocks of {e.block_warps(d)} warps")
PY
for balance in all warps28 warps32; do
  timeout 40 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 \
    --delete-fraction 0.1 --joint --patterns 4-clique,4-cycle --ab-reps 3 --pipeline 20 --pipeline-fresh \
    --pipeline-balances $balance > $L/timeline-fresh-$balance.log 2>&1
  echo "timeline $balance rc $? at $(elapsed) s"; grep -A6 "^pipeline" $L/timeline-fresh-$balance.log
done
timeout $((440 - $(elapsed))) python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py \
  -k "warps or mixed_batches or counted_joint or idle_warps or seed_pieces or memo_counts or hub_bitmaps" \
  > $L/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(elapsed) s"; tail -2 $L/gpu-tests-engine.log; grep -E "^FAILED" $L/gpu-tests-engine.log | head
# Issue 19's figures in the time left: Nsight Compute on every match launch of one RMAT-20 insert
# batch of 1,000, the default build against the 28-warp one (warps active, lanes per instruction).
M=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio
for balance in all warps28; do
  [ "$(elapsed)" -lt 470 ] && timeout $((590 - $(elapsed))) ncu --clock-control none --kernel-name regex:match_ \
    --metrics $M python3 bench/gpu/ncu_batch.py --scale 20 --size 1000 --patterns 4-clique,diamond,4-cycle \
    --balances $balance > $L/ncu-1000-$balance.log 2>&1
  echo "ncu $balance rc $? at $(elapsed) s"
  grep -E "^(4-|diamond)|match_|duration|grid_size|block_size|registers|warps_active|thread_inst" \
    $L/ncu-1000-$balance.log | sed -E 's/ +/ /g' | cut -c1-120
done
