#!/usr/bin/env bash
# Session 6, device call 2 (884ecc5): (1) why call 1's CUDA hot-path test found the first 100,000-edge
# batch at 3.98 s against 0.8 s steady: bench/gpu/first_batch.py alone, with a fresh CuPy kernel cache
# (lists kernels compiled after the warm-up); (2) issue 18's RapidFlow comparison again, alone on the
# machine this time (call 1 ran it beside the GPU tests: its shuffled email-Enron 4-cycle, diamond and
# 4-clique read 26-31% below session 5's call 6 on the same code path, while the dev VM shows no change).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data DM_COMMIT=884ecc5
L=$OUT/logs; mkdir -p $L
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; lscpu | grep "Model name"; } > $L/device.txt
s=$(date +%s); CUPY_CACHE_DIR=$(mktemp -d) CUPY_CACHE_SAVE_CUDA_SOURCE=1 timeout 150 python3 bench/gpu/first_batch.py --rounds 3 --top 15 > $L/first-batch.log 2>&1; echo "first_batch rc $? after $(($(date +%s) - s)) s" >> $L/first-batch.log
cat $L/first-batch.log | tail -60
NUMBA_NUM_THREADS=1 taskset -c 1 timeout 100 python3 -m deltamatch.cli bench --graphs rmat:8 --patterns triangle house --batch 100 --max-batches 1 --engines cpu-1 --no-plots --no-progress --out $L/rf-warm-up > $L/rapidflow-warm-up.log 2>&1
core=1
for graph in email-Enron ca-HepPh; do for order in file shuffle; do
  NUMBA_NUM_THREADS=1 timeout 260 taskset -c $core python3 -m deltamatch.cli bench --no-plots --no-progress --out $L --tag rf-$graph-$order-1000 --graphs $graph $([ $order = shuffle ] && echo --shuffle 1) --batch 1000 --patterns triangle 4-cycle diamond 4-clique house --engines cpu-1 --time-limit 8 > $L/rapidflow-$graph-$order-1000.log 2>&1 &
  core=$((core + 1))
done; done
NUMBA_NUM_THREADS=1 timeout 260 taskset -c 5 python3 -m deltamatch.cli bench --no-plots --no-progress --out $L --tag rf-batch-1 --graphs email-Enron ca-HepPh --batch 1 --patterns triangle 4-cycle diamond 4-clique --engines cpu-1 --time-limit 8 > $L/rapidflow-batch-1.log 2>&1 &
wait
rm -f $L/*batches.csv; tar czf $OUT/call2.tgz -C $OUT logs && rm -rf $L
for f in email-Enron-file email-Enron-shuffle ca-HepPh-file ca-HepPh-shuffle; do echo "== $f"; tar xzf $OUT/call2.tgz -O logs/rapidflow-$f-1000.log | grep -E "^cpu-1"; done
