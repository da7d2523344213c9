#!/usr/bin/env bash
# Session 12, device call 6 (warm, right after call 5; commit ddb6bce, hub first for the warp's
# matched vertices only): the 4-cycle and 4-clique on RMAT-20 against nohubfirst (call 5's ran out of
# its time compiling cold).
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 DM_COMMIT=$(cat .commit); timeout 150 python3 bench/gpu/bench_gpu.py --out $OUT/cycles --scales 20 --sizes 1000,10000 --batches 2 --patterns 4-cycle,4-clique --ablation nohubfirst --no-counters --batch-budget 10 --static-budget 1 --no-cpu --no-relabel --no-static --time-budget 140 > $OUT/bench-cycles.log 2>&1; echo "rc $?" >> $OUT/bench-cycles.log; grep -E "batch|rc|summary|^  20" $OUT/bench-cycles.log | cut -c1-120
