#!/usr/bin/env bash
# Session 39's call 4, not run (too little device time left to start a machine): the next
# session's first call.  Carry [".devbundle", ".commit"]; DEADLINE (s, default 580).
# Issue 13's RMAT-20 4-clique at 1,000 with 10% deletions under the new default (28 warps an SM):
# the default's and warps24's builds compiled, then new batches, joint, each count read as the
# service reads it (timeline.py --pipeline-fresh), under the default and under 24, each in a
# process of its own; the recount on the same machine with the step-timed row (bench_gpu.py,
# 5 batches); and the registers and local memory NVRTC gave each build's match kernels, with
# CuPy's and NVRTC's versions: NVRTC 12.9-13.5 here give the default build's match_tasks,
# match_shared and match_pieces 61-63, 64-66 and 40-42 registers, the device gave 64, 72 and 43.
set -u
D=${DEADLINE:-580}
timeout 200 python3 bench/gpu/compile_builds.py --balances all,warps24 > $L/compile.log 2>&1
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
          f"{e.resident_blocks(f, e.match_unit(f), defines=d)} blocks of {e.block_warps(d)} warps")
PY
}
clique() {
  timeout 60 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 \
    --delete-fraction 0.1 --joint --patterns 4-clique --ab-reps 3 --pipeline 20 --pipeline-fresh \
    --pipeline-balances $1 > $L/timeline-4clique-$1.log 2>&1
  echo "4-clique $1 rc $? at $(elapsed) s"; grep -A5 "^pipeline" $L/timeline-4clique-$1.log
}
clique all
clique warps24
regs all > $L/regs-all.log 2>&1; regs warps24 > $L/regs-warps24.log 2>&1; cat $L/regs-*.log
[ "$(elapsed)" -lt $((D - 90)) ] && timeout $((D - 10 - $(elapsed))) python3 bench/gpu/bench_gpu.py \
  --out $L/bench-4clique --ablation "" --no-relabel --no-counters --no-static --sizes 1000 --batch-budget 30 \
  --time-budget 70 --delete-fraction 0.1 --no-kept-triangles --scales 20 --batches 5 --patterns 4-clique \
  > $L/bench-4clique.log 2>&1
echo "bench rc $? at $(elapsed) s"; grep -E "recount|^  20 " $L/bench-4clique.log | cut -c1-200
