#!/usr/bin/env bash
# Session 21, after session 20's call1.sh (run as this session's calls 1 and 2): where the RMAT-20
# house's batch goes plan by plan, the house at 10^5 on RMAT-20 and at 10^4 with 10% deletions on
# RMAT-22, and the 4-clique's per-warp busy spread at 10^4 (issue 19 measured it at 1,000 only).
#   run: carry [".devbundle", ".cupy-cache.tgz", ".commit"], command:
#   DEVCHECK_STEPS="script" PARTS=1 DEVCHECK_SCRIPT=bench/results/gpu-2026-12-05-session21/call2.sh bash scripts/device-check.sh
step() {  # name, limit (s), command...
  local name=$1 limit=$2 s; shift 2; s=$(date +%s)
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc $? after $(($(date +%s) - s)) s" >> "$OUT/$name.log"
}
bench() {  # name, limit (s), bench_gpu.py arguments...
  local name=$1 limit=$2; shift 2
  step "$name" "$limit" python3 bench/gpu/bench_gpu.py --out "$OUT/$name" --no-relabel --no-static \
    --no-cpu --batches 1 --static-budget 5 --batch-budget $((limit - 40)) --time-budget $((limit - 20)) "$@"
  grep "batch\|summary\|  2[02] \|rc \|edges" "$OUT/$name.log" | cut -c1-240; grep -c MISMATCH "$OUT/$name.log"
}
parts=" ${PARTS:-1 2} "
if [[ $parts == *" 1 "* ]]; then
step plans20 120 python3 bench/gpu/plan_split.py --scale 20 --size 1000 --pattern house --kept --repeats 1
grep "plan\|batch\|rc " "$OUT/plans20.log" | cut -c1-260
bench clique20-10k-counters 90 --counters --patterns 4-clique --scales 20 --sizes 10000 --ablation ""
bench house20-100k 300 --no-counters --patterns house --scales 20 --sizes 100000 --ablation ""
fi
if [[ $parts == *" 2 "* ]]; then
bench house22-del 90 --no-counters --patterns house --scales 22 --sizes 1000 --delete-fraction 0.1 --ablation ""
bench house22-10k 280 --no-counters --patterns house --scales 22 --sizes 10000 --ablation ""
fi
