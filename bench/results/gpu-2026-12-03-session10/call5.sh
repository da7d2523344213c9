#!/usr/bin/env bash
# Session 10, device call 5: hub bitmaps kept by the batches (graph.cu: hub_bits_apply) instead of
# rebuilt after each one.  The device-graph and warm-up GPU tests; then the bitmap budget swept
# (256 MB, the default, kept by the batches; 1, 4 and 12 GB built fresh after each batch, build timed
# apart) on RMAT-20 and RMAT-22 batches of 1,000 inserts; then PGMiner's ablation with the kernel's
# counters on RMAT-20.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DM_COMMIT=$(cat .commit)
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
s=$(date +%s); timeout 150 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf tests/workers/test_cuda_backend.py \
  tests/scheduler/test_warmup.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc $? after $(($(date +%s) - s)) s" >> $OUT/gpu-tests.log
tail -3 $OUT/gpu-tests.log
SETTINGS="hub1g:HUB_BITMAP_BYTES=1073741824;hub4g:HUB_BITMAP_BYTES=4294967296;hub12g:HUB_BITMAP_BYTES=12884901888"
for scale in 20 22; do
  timeout 110 python3 bench/gpu/balance_sweep.py --scale $scale --batch 1000 --batches 3 --repeats 3 \
    --settings "$SETTINGS" > $OUT/sweep-$scale.log 2>&1; echo "sweep rc $?" >> $OUT/sweep-$scale.log
  grep -v "^batch [0-9] done" $OUT/sweep-$scale.log
done
timeout 150 python3 bench/gpu/bench_gpu.py --out $OUT/ablation --scales 20 --sizes 1000,10000 --batches 1 \
  --patterns 4-cycle,diamond,4-clique --ablation none,split,unroll --batch-budget 5 --static-budget 2 --no-cpu \
  --no-relabel --no-static --time-budget 130 > $OUT/ablation.log 2>&1; echo "bench rc $?" >> $OUT/ablation.log
grep -E "  batch|rc" $OUT/ablation.log | cut -c1-240
