#!/usr/bin/env bash
# Session 6, device call 1 (884ecc5): the code that never ran on a GPU (round 4's compiled vertex map and
# batch view, the oriented-edge refactor of cuda_engine) under the GPU tests of kernels, workers and the
# warm-up, on cores 6-15; beside them, on cores 1-5, issue 18's CPU engine against RapidFlow after round 4
# (cpu-1, one numba thread a run, pinned); then the service end to end alone.  Logs in one tarball.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data DM_COMMIT=884ecc5
L=$OUT/logs; mkdir -p $L
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; lscpu | grep "Model name"; } > $L/device.txt
(
  NUMBA_NUM_THREADS=1 taskset -c 1 timeout 100 python3 -m deltamatch.cli bench --graphs rmat:8 --patterns triangle house --batch 100 --max-batches 1 --engines cpu-1 --no-plots --no-progress --out $L/rf-warm-up > $L/rapidflow-warm-up.log 2>&1
  core=1
  for graph in email-Enron ca-HepPh; do for order in file shuffle; do
    NUMBA_NUM_THREADS=1 timeout 260 taskset -c $core python3 -m deltamatch.cli bench --no-plots --no-progress --out $L --tag rf-$graph-$order-1000 --graphs $graph $([ $order = shuffle ] && echo --shuffle 1) --batch 1000 --patterns triangle 4-cycle diamond 4-clique house --engines cpu-1 --time-limit 8 > $L/rapidflow-$graph-$order-1000.log 2>&1 &
    core=$((core + 1))
  done; done
  NUMBA_NUM_THREADS=1 timeout 260 taskset -c 5 python3 -m deltamatch.cli bench --no-plots --no-progress --out $L --tag rf-batch-1 --graphs email-Enron ca-HepPh --batch 1 --patterns triangle 4-cycle diamond 4-clique --engines cpu-1 --time-limit 8 > $L/rapidflow-batch-1.log 2>&1 &
  wait
) &
rf=$!
s=$(date +%s)
taskset -c 6-15 timeout 300 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf tests/kernels tests/workers tests/scheduler/test_warmup.py > $L/gpu-tests.log 2>&1; echo "pytest rc $? after $(($(date +%s) - s)) s" >> $L/gpu-tests.log
wait $rf
s=$(date +%s); timeout 110 python3 bench/gpu/service_e2e.py > $L/service-e2e.log 2>&1; echo "e2e rc $? after $(($(date +%s) - s)) s" >> $L/service-e2e.log
rm -f $L/*batches.csv; tar czf $OUT/call1.tgz -C $OUT logs && rm -rf $L
tar xzf $OUT/call1.tgz -O logs/gpu-tests.log | grep -v "^\.*\s*\[" | tail -30
tar xzf $OUT/call1.tgz -O logs/service-e2e.log | grep -v "logging.cc\|^ *@\|PC: @\|SIGTERM" | tail -12
for f in email-Enron-file email-Enron-shuffle ca-HepPh-file ca-HepPh-shuffle; do echo "== $f"; tar xzf $OUT/call1.tgz -O logs/rapidflow-$f-1000.log | tail -9; done
echo "== batch-1"; tar xzf $OUT/call1.tgz -O logs/rapidflow-batch-1.log | tail -12
