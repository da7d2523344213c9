#!/usr/bin/env bash
# Session 13, call 4 (52e2585): the load-balance thresholds swept again on RMAT-20, batches of 1,000.
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DM_COMMIT=$(cat .commit); { date -u; echo "commit $(cat .commit)"; } > $OUT/device.txt
timeout 200 python3 bench/gpu/balance_sweep.py --scale 20 --batch 1000 --batches 3 --repeats 3 --patterns 4-cycle,4-clique,diamond --settings "share2:AUTO_CHUNK_SHARE=2;share8:AUTO_CHUNK_SHARE=8;share16:AUTO_CHUNK_SHARE=16;min64:MIN_CHUNK_COST=64;min1k:MIN_CHUNK_COST=1024;defer512:defer_cost=512;defer8k:defer_cost=8192;pairs8k:share_pairs=8192" > $OUT/sweep.log 2>&1
