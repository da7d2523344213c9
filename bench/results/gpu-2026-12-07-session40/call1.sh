#!/usr/bin/env bash
# Session 40, call 1.  Carry [".devbundle", ".commit", ".numba-cache.tgz"]; DEADLINE (s, default 580).
# Issue 19's warps active: a build of 36 warps an SM (blocks of 4 capped at 56 registers, which
# spill: nvcc here 320-428 bytes of stores) against the default 28, the only way past the 50% that
# 32 resident warps cap.  The builds compiled; NVRTC's registers of both (with CuPy's, NVRTC's and
# the driver's versions: session 39's H200 gave match_shared 72 where its H100s fit 64); Nsight
# Compute on every match launch of one RMAT-20 insert batch of 1,000 under each; the warps36
# parity tests; new joint batches under each (interleaved); then session 39's call 4: the
# 4-clique with 10% deletions and its recount (bench_gpu.py, 5 batches).
set -u
D=${DEADLINE:-580}
timeout 220 python3 bench/gpu/compile_builds.py --balances all,warps36 > $L/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $L/compile.log
regs() {
  python3 - "$1" <<'PY'
import sys
sys.path.insert(0, "bench/gpu")
from bench_gpu import BALANCES
from deltamatch.kernels import cuda_engine as e
cp = e.cupy()
print(f"CuPy {cp.__version__}, NVRTC {cp.cuda.nvrtc.getVersion()}, driver {cp.cuda.runtime.driverGetVersion()}")
d = BALANCES[sys.argv[1]].defines()
for f in ("match_tasks", "match_shared", "match_pieces", "match_memo", "match_memo_shared"):
    k = e.kernel(e.match_unit(f), f, defines=d)
    print(f"{sys.argv[1]} {f}: {k.num_regs} registers, {k.local_size_bytes} B local, "
          f"{e.resident_blocks(f, e.match_unit(f), defines=d)} blocks of {e.block_warps(d, e.match_unit(f))} warps")
PY
}
regs all > $L/regs-all.log 2>&1; regs warps36 > $L/regs-warps36.log 2>&1; cat $L/regs-*.log
M=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio
for balance in all warps36; do
  timeout 100 ncu --clock-control none --kernel-name regex:match_ --metrics $M python3 bench/gpu/ncu_batch.py \
    --scale 20 --size 1000 --patterns 4-clique,diamond,4-cycle --balances $balance > $L/ncu-1000-$balance.log 2>&1
  echo "ncu $balance rc $? at $(elapsed) s"
  grep -E "^(4-|diamond)|match_|duration|grid_size|registers|warps_active|thread_inst" \
    $L/ncu-1000-$balance.log | sed -E 's/ +/ /g' | cut -c1-120
done
timeout 120 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -k warps36 \
  tests/kernels/test_cuda_engine.py > $L/gpu-tests-warps36.log 2>&1
echo "warps36 tests rc $? at $(elapsed) s"; tail -2 $L/gpu-tests-warps36.log; grep -E "^FAILED" $L/gpu-tests-warps36.log | head
fresh() {
  timeout 40 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 \
    --delete-fraction 0.1 --joint --patterns $2 --ab-reps 3 --pipeline 20 --pipeline-fresh \
    --pipeline-balances $1 > $L/timeline-$3-$1.log 2>&1
  echo "timeline $3 $1 rc $? at $(elapsed) s"; grep -A6 "^pipeline" $L/timeline-$3-$1.log
}
for balance in all warps36; do
  [ "$(elapsed)" -lt $((D - 200)) ] && fresh $balance 4-clique,4-cycle joint
done
[ "$(elapsed)" -lt $((D - 170)) ] && fresh all 4-clique 4clique
[ "$(elapsed)" -lt $((D - 90)) ] && timeout $((D - 10 - $(elapsed))) python3 bench/gpu/bench_gpu.py \
  --out $L/bench-4clique --ablation "" --no-relabel --no-counters --no-static --sizes 1000 --batch-budget 30 \
  --time-budget 70 --delete-fraction 0.1 --no-kept-triangles --scales 20 --batches 5 --patterns 4-clique \
  > $L/bench-4clique.log 2>&1
echo "bench rc $? at $(elapsed) s"; grep -E "recount|^  20 " $L/bench-4clique.log | cut -c1-200
true
