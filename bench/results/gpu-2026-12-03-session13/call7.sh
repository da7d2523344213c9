#!/usr/bin/env bash
# Session 13, call 7 (AUTO_CHUNK_SHARE = 64): the house on RMAT-16/18/20, GPU only (call 3 has the CPU engine on the same batches).
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DM_COMMIT=$(cat .commit); { date -u; echo "commit $(cat .commit)"; } > $OUT/device.txt
timeout 150 python3 bench/gpu/bench_gpu.py --out $OUT/house --scales 16,18,20 --sizes 1000 --batches 2 --patterns house --ablation "" --no-counters --batch-budget 40 --static-budget 1 --no-cpu --no-relabel --no-static --time-budget 140 > $OUT/bench-house.log 2>&1
