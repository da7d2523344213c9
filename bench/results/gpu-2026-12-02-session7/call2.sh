#!/usr/bin/env bash
# Session 7, device call 2: issue 13's incremental table at the current commit, one run per
# deletion share, side by side: GPU batch (matching + graph update) vs the CPU engine on all 16
# cores on the same tasks, and vs the service's from-scratch recount of the final graph.
# rmat:20 and rmat:22, batches of 1,000 and 10^4, two batches each; no ablation (the balance
# switches' ablation is session 4's); house with a 5 s budget a batch.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 DELTAMATCH_DATA=$PWD/data DM_COMMIT=$(cat .commit)
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
for del in 0 0.1; do
  mkdir -p $OUT/del$del
  timeout 285 python3 bench/gpu/bench_gpu.py --out $OUT/del$del --scales 20,22 --sizes 1000,10000 --batches 2 \
    --patterns 4-clique,diamond,4-cycle,house --ablation "" --batch-budget 5 --static-budget 3 \
    --cpu-limit 20 --cpu-when-gpu-under 6 --no-relabel --no-static --delete-fraction $del --time-budget 240 > $OUT/del$del/gpu-bench.log 2>&1
  echo "bench rc $?" >> $OUT/del$del/gpu-bench.log
done
head -2 $OUT/device.txt
for del in 0 0.1; do echo "== deletions $del"; grep -E "^rmat|V=|vertices|summary|^  (20|22) |rc|MISMATCH|budget" $OUT/del$del/gpu-bench.log | head -40; done
