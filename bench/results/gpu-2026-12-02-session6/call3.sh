#!/usr/bin/env bash
# Session 6, device call 3: (1) the CUDA hot-path test after the relocation fix (row_layout totals by
# scans); (2) where a 1,000-edge batch's host time goes on RMAT-20 (4-clique, diamond): bench_gpu.py
# under cProfile, six batches, no CPU engine; callees of count_tasks and GpuGraph.apply.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data DM_COMMIT=$(cat .commit 2>/dev/null)
L=$OUT/logs; mkdir -p $L
s=$(date +%s); timeout 150 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf tests/scheduler/test_warmup.py 2>&1 | tail -6; echo "warm-up tests after $(($(date +%s) - s)) s"
timeout 200 python3 -m cProfile -o $L/prof.out bench/gpu/bench_gpu.py --scales 20 --sizes 1000 --batches 6 --patterns 4-clique,diamond --no-cpu --no-relabel --ablation all --static-budget 0.5 --out $L > $L/bench.log 2>&1; echo "bench rc $?"
grep -E "batch|RMAT|loaded" $L/bench.log | head -20
python3 - <<'PY' 2>&1 | cut -c1-200 | head -150
import pstats, os, io
p = pstats.Stats(os.environ["OUT"] + "/logs/prof.out")
p.sort_stats("cumulative")
p.print_callees("count_tasks|GpuGraph.apply|cuda_backend.py.*apply")
p.sort_stats("tottime").print_stats(25)
PY
tar czf $OUT/call3.tgz -C $OUT logs && rm -rf $L
