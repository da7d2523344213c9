#!/usr/bin/env bash
# Session 6, device call 6 (the last of the session, after merging issue-16d and issue-18e):
#  cores 1-5: issue 18's CPU engine against RapidFlow (cpu-1, one numba thread a run, pinned): each
#    graph x order twice in a row on its core (the host reads up to 36% apart between runs), beside
#    one batches-of-1 run;
#  cores 6-15, one after the other: the GPU tests (CUDA engine parity, the backend, the warm-up),
#    bench/gpu/timeline.py (call 4 was before this session's host-overhead work), the service end to
#    end on two CUDA workers, and issue 16's 100-edge triangle latency on the local route.
# The GPU steps' logs sit in $OUT itself (they come back even if the call is cut short); the RapidFlow
# logs in one tarball.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data
L=$OUT/logs; mkdir -p $L
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; lscpu | grep -E "Model name|Thread|Socket"; } > $L/device.txt
(
  NUMBA_NUM_THREADS=1 taskset -c 1 timeout 100 python3 -m deltamatch.cli bench --graphs rmat:8 --patterns triangle house --batch 100 --max-batches 1 --engines cpu-1 --no-plots --no-progress --out $L/rf-warm-up > $L/rapidflow-warm-up.log 2>&1
  core=1
  for graph in email-Enron ca-HepPh; do for order in file shuffle; do
    ( for rep in 1 2; do
        NUMBA_NUM_THREADS=1 timeout 170 taskset -c $core python3 -m deltamatch.cli bench --no-plots --no-progress --out $L --tag rf-$graph-$order-1000-r$rep --graphs $graph $([ $order = shuffle ] && echo --shuffle 1) --batch 1000 --patterns triangle 4-cycle diamond 4-clique house --engines cpu-1 --time-limit 8 > $L/rapidflow-$graph-$order-1000-r$rep.log 2>&1
      done ) &
    core=$((core + 1))
  done; done
  NUMBA_NUM_THREADS=1 timeout 300 taskset -c 5 python3 -m deltamatch.cli bench --no-plots --no-progress --out $L --tag rf-batch-1 --graphs email-Enron ca-HepPh --batch 1 --patterns triangle 4-cycle diamond 4-clique --engines cpu-1 --time-limit 8 > $L/rapidflow-batch-1.log 2>&1 &
  wait
) &
rf=$!
s=$(date +%s); taskset -c 6-15 timeout 230 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf tests/workers/test_cuda_backend.py tests/kernels/test_cuda_engine.py tests/scheduler/test_warmup.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc $? after $(($(date +%s) - s)) s" >> $OUT/gpu-tests.log
taskset -c 6-15 timeout 80 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 4 --patterns 4-clique,diamond,4-cycle --top 6 2>&1 | grep -v "^\[W\|Warning\|warn" > $OUT/timeline-20.log
s=$(date +%s); taskset -c 6-15 timeout 60 python3 bench/gpu/service_e2e.py > $OUT/service-e2e.log 2>&1; echo "e2e rc $? after $(($(date +%s) - s)) s" >> $OUT/service-e2e.log
taskset -c 6-15 timeout 75 python3 bench/gpu/service_latency.py --out $OUT --backend cuda --parts a --crossover 0 --local 1e18 --batches-a 60 --time-budget 65 > $OUT/service-latency.log 2>&1; echo "latency rc $?" >> $OUT/service-latency.log
wait $rf
rm -f $L/*batches.csv; rm -rf $L/rf-warm-up; tar czf $OUT/call6.tgz -C $OUT logs && rm -rf $L
x() { if [ -f $OUT/$1 ]; then cat $OUT/$1; else tar xzf $OUT/call6.tgz -O logs/$1; fi; }
x gpu-tests.log | grep -v "^\.*\s*\[" | tail -12
x timeline-20.log | grep -E "^steady|^first"
x service-e2e.log | grep -v "logging.cc\|^ *@\|PC: @\|SIGTERM" | grep -E "^v[0-9]|PASS|FAIL|rc" | cut -c1-40
x service-latency.log | grep -E "end to end|^\| (http|matching|scheduler_call|graph_update|log|intake|transport) |rc"
for f in email-Enron-file email-Enron-shuffle ca-HepPh-file ca-HepPh-shuffle; do for r in 1 2; do echo "== $f r$r"; x rapidflow-$f-1000-r$r.log | grep -E "^cpu-1" | awk '{print $1, $2, $3, $8}'; done; done
