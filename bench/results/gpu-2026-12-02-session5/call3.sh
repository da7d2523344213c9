#!/usr/bin/env bash
# Session 5, device call 3 (b56629b): GPU tests of the static methods (clique bit matrices, formulas,
# orientation), static counts against G2Miner with the ablation, kernel times behind hold_stream.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data DM_COMMIT=b56629b
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; } > $OUT/device.txt
timeout 120 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short tests/kernels/test_cuda_engine.py -k "static_count or clique_bits or four_cycles or edge_triangles or oriented" > $OUT/gpu-tests.log 2>&1; echo "rc $?" >> $OUT/gpu-tests.log
timeout 150 python3 bench/gpu/static_bench.py --out $OUT/static --graphs wiki-Vote,email-Enron,rmat:20 --patterns triangle,4-clique,diamond,4-cycle,house --ablation no-clique-bits --ablation-graphs wiki-Vote,email-Enron,rmat:20 --ablation-patterns 4-clique --repeats 3 --budget 8 > $OUT/gpu-static.log 2>&1
tail -3 $OUT/gpu-tests.log
