#!/usr/bin/env bash
# Session 13, call 5 (52e2585): AUTO_CHUNK_SHARE 16-128 on RMAT-20/22, batches of 1,000 and 10^4.
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DM_COMMIT=$(cat .commit); { date -u; echo "commit $(cat .commit)"; } > $OUT/device.txt
S="share16:AUTO_CHUNK_SHARE=16;share32:AUTO_CHUNK_SHARE=32;share64:AUTO_CHUNK_SHARE=64;share128:AUTO_CHUNK_SHARE=128;share32min64:AUTO_CHUNK_SHARE=32,MIN_CHUNK_COST=64"
for sc in 20 22; do for b in 1000 10000; do
  timeout 100 python3 bench/gpu/balance_sweep.py --scale $sc --batch $b --batches 3 --repeats 3 --patterns 4-cycle,4-clique,diamond --settings "$S" > $OUT/sweep-$sc-$b.log 2>&1
done; done
