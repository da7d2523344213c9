#!/usr/bin/env bash
# Session 10, device call 1: does idle warps' polling of the work-sharing board slow the warps still
# working?  The same RMAT-20 / RMAT-22 batches of 1,000 inserts (bench/gpu/balance_sweep.py) with three
# builds of match.cu: `head` (6ad3e6b), `claim` (the working tree: a claimed piece's first candidate
# found by the pair window from the warp's cursor instead of a binary search; idle warps read only
# the open flag of a closed record; the active-warp counter polled by a load, not an atomic) and
# `sleep32us` (claim, with idle warps backing off to 32 us instead of 4 us).  Settings per build:
# the default, stealing off, and nothing published (share_pairs 10^12: idle warps still poll).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0
{ date -u; echo "commit $(cat .commit) + working tree"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
SETTINGS="nosteal:steal=0;nopub:share_pairs=1000000000000"
cp deltamatch/kernels/match.cu variants/match-claim.cu
for build in claim head sleep32us; do
  cp variants/match-$build.cu deltamatch/kernels/match.cu
  for scale in 20 22; do
    timeout 100 python3 bench/gpu/balance_sweep.py --scale $scale --batch 1000 --batches 3 --repeats 3 \
      --settings "$SETTINGS" > $OUT/sweep-$build-$scale.log 2>&1; echo "sweep rc $?" >> $OUT/sweep-$build-$scale.log
    echo "== $build rmat:$scale"; grep -v "^batch" $OUT/sweep-$build-$scale.log
  done
done
