#!/usr/bin/env bash
# Session 5, device call 6 (857dfca, issues 16c and 18c merged).  Two things at once, on separate cores:
#  - cores 1-5: issue 18's CPU engine against RapidFlow on this host (device-check's rapidflow step,
#    inline so that the bundle is installed once: a numba warm-up run, then four deltamatch bench
#    runs pinned one per core, one numba thread each, and a batches-of-1 run; cpu-1 only);
#  - cores 6-15: the service end to end on two CUDA workers, the CUDA hot-path warm-up test, and
#    part (a) of the per-batch latency benchmark (issue 16: 100-edge triangle batches on rmat:16,
#    every batch on the scheduler's local route).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data DM_COMMIT=857dfca
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; lscpu | grep "Model name"; } > $OUT/device.txt
(
  NUMBA_NUM_THREADS=1 taskset -c 1 timeout 80 python3 -m deltamatch.cli bench --graphs rmat:8 --patterns triangle house --batch 100 --max-batches 1 --engines cpu-1 --no-plots --no-progress --out $OUT/rf-warm-up > $OUT/rapidflow-warm-up.log 2>&1
  core=1
  for graph in email-Enron ca-HepPh; do for order in file shuffle; do
    NUMBA_NUM_THREADS=1 timeout 200 taskset -c $core python3 -m deltamatch.cli bench --no-plots --no-progress --out $OUT --tag rf-$graph-$order-1000 --graphs $graph $([ $order = shuffle ] && echo --shuffle 1) --batch 1000 --patterns triangle 4-cycle diamond 4-clique house --engines cpu-1 --time-limit 8 > $OUT/rapidflow-$graph-$order-1000.log 2>&1 &
    core=$((core + 1))
  done; done
  NUMBA_NUM_THREADS=1 timeout 200 taskset -c 5 python3 -m deltamatch.cli bench --no-plots --no-progress --out $OUT --tag rf-batch-1 --graphs email-Enron ca-HepPh --batch 1 --patterns triangle 4-cycle diamond 4-clique --engines cpu-1 --time-limit 8 > $OUT/rapidflow-batch-1.log 2>&1 &
  wait
) &
rf=$!
taskset -c 6-15 timeout 85 python3 bench/gpu/service_e2e.py > $OUT/service-e2e.log 2>&1; echo "e2e rc $?" >> $OUT/service-e2e.log
taskset -c 6-15 timeout 75 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short tests/scheduler/test_warmup.py > $OUT/warmup-tests.log 2>&1; echo "rc $?" >> $OUT/warmup-tests.log
taskset -c 6-15 timeout 80 python3 bench/gpu/service_latency.py --out $OUT --parts a --crossover 0 --local 1e18 --batches-a 40 --time-budget 70 > $OUT/service-latency.log 2>&1; echo "latency rc $?" >> $OUT/service-latency.log
wait $rf
tail -2 $OUT/warmup-tests.log; tail -1 $OUT/service-e2e.log; tail -3 $OUT/service-latency.log; tail -n 3 $OUT/rapidflow-*.log
