#!/usr/bin/env bash
# Session 7, device call 1: the review commit d9c35b4 never ran on a GPU.
#  cores 6-15, one after the other: the GPU tests (CUDA engine parity, the backend, the warm-up),
#    bench/gpu/timeline.py with --host-profile (where a count's idle host time goes), the service
#    end to end on two CUDA workers;
#  cores 1-3 meanwhile (issue 18, main's CPU engine, one numba thread a run): email-Enron shuffled
#    house over the whole stream (--time-limit 150), file-order 4-cycle and diamond three times each.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data
L=$OUT/logs; mkdir -p $L
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; lscpu | grep -E "Model name|Thread|Socket"; } > $OUT/device.txt
b() { NUMBA_NUM_THREADS=1 taskset -c $1 timeout $2 python3 -m deltamatch.cli bench --no-plots --no-progress --out $L --engines cpu-1 --batch 1000 "${@:3}"; }
(
  b 1 200 --tag rf-house-shuffle --graphs email-Enron --shuffle 1 --patterns house --time-limit 150 > $L/rf-house-shuffle.log 2>&1 &
  ( for r in 1 2 3; do b 2 60 --tag rf-4cycle-file-r$r --graphs email-Enron --patterns 4-cycle --time-limit 20 > $L/rf-4cycle-file-r$r.log 2>&1; done ) &
  ( for r in 1 2 3; do b 3 60 --tag rf-diamond-file-r$r --graphs email-Enron --patterns diamond --time-limit 20 > $L/rf-diamond-file-r$r.log 2>&1; done ) &
  wait
) &
rf=$!
s=$(date +%s); taskset -c 6-15 timeout 240 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf tests/workers/test_cuda_backend.py tests/kernels/test_cuda_engine.py tests/scheduler/test_warmup.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc $? after $(($(date +%s) - s)) s" >> $OUT/gpu-tests.log
taskset -c 6-15 timeout 120 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 4 --patterns 4-clique,diamond,4-cycle --top 6 --host-profile 10 2>&1 | grep -v "^\[W\|Warning\|warn" > $OUT/timeline-20.log
s=$(date +%s); taskset -c 6-15 timeout 70 python3 bench/gpu/service_e2e.py > $OUT/service-e2e.log 2>&1; echo "e2e rc $? after $(($(date +%s) - s)) s" >> $OUT/service-e2e.log
wait $rf
rm -f $L/*batches.csv; tar czf $OUT/rf.tgz -C $OUT logs && rm -rf $L
cat $OUT/device.txt | head -3
grep -v "^\.*\s*\[" $OUT/gpu-tests.log | tail -8
grep -E "^steady|^first|^host" $OUT/timeline-20.log
grep -v "logging.cc\|^ *@\|PC: @\|SIGTERM" $OUT/service-e2e.log | grep -E "^v[0-9]|PASS|FAIL|rc" | cut -c1-60
for f in rf-house-shuffle rf-4cycle-file-r1 rf-4cycle-file-r2 rf-4cycle-file-r3 rf-diamond-file-r1 rf-diamond-file-r2 rf-diamond-file-r3; do echo "== $f"; tar xzf $OUT/rf.tgz -O logs/$f.log | grep -E "^cpu-1" | awk '{print $1, $2, $3, $8}'; done
