#!/usr/bin/env bash
# Session 5, device call 2 (05c192f): GPU tests of the static methods and of Balance.fill, static counts
# against G2Miner with the static-method ablation, batch ablation unroll / steal / all, ncu of fill.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data DM_COMMIT=05c192f
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; } > $OUT/device.txt
timeout 150 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short tests/kernels/test_cuda_engine.py tests/workers/test_cuda_backend.py -k "static_count or oriented or edge_triangles or four_cycles or fill1 or skewed or join or switch" > $OUT/gpu-tests.log 2>&1; echo "rc $?" >> $OUT/gpu-tests.log
timeout 200 python3 bench/gpu/static_bench.py --out $OUT/static --graphs wiki-Vote,email-Enron,rmat:20 --patterns triangle,4-clique,diamond,4-cycle,house --ablation plain --ablation-graphs wiki-Vote,email-Enron,rmat:20 --ablation-patterns triangle,4-clique,diamond,4-cycle --repeats 3 --budget 8 > $OUT/gpu-static.log 2>&1
timeout 140 python3 bench/gpu/bench_gpu.py --out $OUT/batch --time-budget 120 --scales 20 --batches 1 --sizes 1000,10000 --patterns 4-clique,diamond,4-cycle --ablation unroll,steal --batch-budget 3 --static-budget 0.5 --no-cpu --no-relabel > $OUT/gpu-bench.log 2>&1
timeout 80 ncu --clock-control none --kernel-name regex:match_ --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio python3 bench/gpu/ncu_batch.py --scale 20 --size 1000 --patterns 4-clique,4-cycle --balances all,steal > $OUT/ncu-batch.log 2>&1
tail -3 $OUT/gpu-tests.log
