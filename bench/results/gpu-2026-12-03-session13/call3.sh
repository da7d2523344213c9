#!/usr/bin/env bash
# Session 13, call 3 (52e2585): RMAT-20 with 10% deletions against the CPU engine; the house on RMAT-16/18.
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DM_COMMIT=$(cat .commit); { date -u; echo "commit $(cat .commit)"; } > $OUT/device.txt
timeout 130 python3 bench/gpu/bench_gpu.py --out $OUT/deletes --scales 20 --sizes 1000,10000 --batches 2 --delete-fraction 0.1 --patterns 4-cycle,diamond,4-clique --ablation "" --no-counters --batch-budget 5 --static-budget 3 --cpu-limit 20 --cpu-when-gpu-under 6 --no-relabel --no-static --time-budget 120 > $OUT/bench-deletes.log 2>&1
timeout 150 python3 bench/gpu/bench_gpu.py --out $OUT/house --scales 16,18 --sizes 1000 --batches 2 --patterns house --ablation "" --no-counters --batch-budget 30 --static-budget 1 --cpu-limit 60 --cpu-when-gpu-under 30 --no-relabel --no-static --time-budget 140 > $OUT/bench-house.log 2>&1
