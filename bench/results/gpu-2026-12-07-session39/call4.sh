#!/usr/bin/env bash
# Session 39, call 4 (about 250 s of device time left; a fresh machine compiles what it loads).
# Issue 13's RMAT-20 4-clique at 1,000 with 10% deletions under the new default (28 warps an SM):
# new batches, joint, each count read as the service reads it (timeline.py --pipeline-fresh), then
# the recount on the same machine (bench_gpu.py), then, in the time left, the registers and local
# memory NVRTC gave the default build's match kernels and the same batches under 24.
set -u
D=${DEADLINE:-225}
regs() {
  python3 - "$1" <<'PY'
import sys
sys.path.insert(0, "bench/gpu")
from bench_gpu import BALANCES
from deltamatch.kernels import cuda_engine as e
d = BALANCES[sys.argv[1]].defines()
for f in ("match_tasks", "match_shared", "match_pieces", "match_memo", "match_memo_shared"):
    k = e.kernel(e.match_unit(f), f, defines=d)
    print(f"{sys.argv[1]} {f}: {k.num_regs} registers, {k.local_size_bytes} B local, "
          f"{e.resident_blocks(f, e.match_unit(f), defines=d)} blocks of {e.block_warps(d)} warps")
PY
}
clique() {
  timeout $((D - $(elapsed))) python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 \
    --delete-fraction 0.1 --joint --patterns 4-clique --ab-reps 3 --pipeline 20 --pipeline-fresh \
    --pipeline-balances $1 > $L/timeline-4clique-$1.log 2>&1
  echo "4-clique $1 rc $? at $(elapsed) s"; grep -A5 "^pipeline" $L/timeline-4clique-$1.log
}
clique all
[ "$(elapsed)" -lt $((D - 60)) ] && timeout $((D - $(elapsed))) python3 bench/gpu/bench_gpu.py \
  --out $L/bench-4clique --ablation "" --no-relabel --no-counters --no-static --sizes 1000 --batch-budget 20 \
  --time-budget 40 --delete-fraction 0.1 --no-kept-triangles --scales 20 --batches 3 --patterns 4-clique \
  > $L/bench-4clique.log 2>&1
echo "bench rc $? at $(elapsed) s"; grep -E "recount|^  20 " $L/bench-4clique.log | cut -c1-200
[ "$(elapsed)" -lt $((D - 50)) ] && timeout $((D - $(elapsed))) bash -c "$(declare -f regs); regs all" > $L/regs-all.log 2>&1
cat $L/regs-all.log
[ "$(elapsed)" -lt $((D - 70)) ] && clique warps24
true
