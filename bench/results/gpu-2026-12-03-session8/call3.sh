#!/usr/bin/env bash
# Session 8, device call 3 (after the scheduler's cheaper prediction: the numba task cost and the
# common-neighbour bound for auto's local decision):
#  cores 8-15: issue 16's part (c) again (email-Enron, 1,000-edge batches, five patterns, routes gpu,
#    cpu, local forced, then auto with the measured thresholds), then the service end to end on two
#    CUDA workers;
#  cores 1-4: issue 18, the CPU engine against RapidFlow (cpu-1, one numba thread, pinned), each
#    graph x order once.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data
L=$OUT/logs; mkdir -p $L
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
(
  NUMBA_NUM_THREADS=1 taskset -c 1 timeout 100 python3 -m deltamatch.cli bench --graphs rmat:8 --patterns triangle house --batch 100 --max-batches 1 --engines cpu-1 --no-plots --no-progress --out $L/warm > $L/warm-up.log 2>&1
  core=1
  for graph in email-Enron ca-HepPh; do for order in file shuffle; do
    NUMBA_NUM_THREADS=1 taskset -c $core timeout 150 python3 -m deltamatch.cli bench --no-plots --no-progress --out $L --engines cpu-1 --batch 1000 --tag rf-$graph-$order --graphs $graph $([ $order = shuffle ] && echo --shuffle 1) --patterns triangle 4-cycle diamond 4-clique house --time-limit 8 > $L/rf-$graph-$order.log 2>&1 &
    core=$((core + 1))
  done; done
  wait
) &
rf=$!
taskset -c 8-15 timeout 360 python3 bench/gpu/service_latency.py --out $OUT --backend cuda --parts c --batches-c 8 --time-budget 330 > $OUT/service-latency.log 2>&1; echo "latency rc $?" >> $OUT/service-latency.log
s=$(date +%s); taskset -c 8-15 timeout 90 python3 bench/gpu/service_e2e.py > $OUT/service-e2e.log 2>&1; echo "e2e rc $? after $(($(date +%s) - s)) s" >> $OUT/service-e2e.log
wait $rf
rm -f $L/*batches.csv; rm -rf $L/warm; tar czf $OUT/rf.tgz -C $OUT logs && rm -rf $L
head -2 $OUT/device.txt
grep -vE "^\s*$" $OUT/service-latency.log | grep -E "ready|measured|^\(c\)|^\| |thresholds|rows|rc|FAIL|stopped" | head -30
grep -v "logging.cc\|^ *@\|PC: @\|SIGTERM" $OUT/service-e2e.log | grep -E "^v[0-9]|PASS|FAIL|rc" | cut -c1-60
x() { tar xzf $OUT/rf.tgz -O logs/$1; }
for f in email-Enron-file email-Enron-shuffle ca-HepPh-file ca-HepPh-shuffle; do echo "== $f"; x rf-$f.log | grep -E "^==|^cpu-1" | awk '{print $1, $2, $3, $4, $7}' | paste - - ; done
