#!/usr/bin/env bash
# Session 7, device call 4 (after merging issue-16f and issue-18g):
#  cores 1-5: issue 18, the CPU engine against RapidFlow (cpu-1, one numba thread a run, pinned):
#    each graph x order twice in a row on its core; core 5: round 6's fused last levels on and off
#    (cpu-1 vs cpu-1-nofuse), email-Enron file order then shuffled;
#  cores 8-15, one after the other: issue 16's 100-edge triangle batches on the local route with the
#    direct channel on and off (two services), the service end to end on two CUDA workers, and
#    Nsight Compute of the 4-cycle's and diamond's batch launches (the service's build, bitmaps on).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data
L=$OUT/logs; mkdir -p $L
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
b() { NUMBA_NUM_THREADS=1 taskset -c $1 timeout $2 python3 -m deltamatch.cli bench --no-plots --no-progress --out $L --engines cpu-1 --batch 1000 "${@:3}"; }
(
  NUMBA_NUM_THREADS=1 taskset -c 1 timeout 100 python3 -m deltamatch.cli bench --graphs rmat:8 --patterns triangle house --batch 100 --max-batches 1 --engines cpu-1 cpu-1-nofuse --no-plots --no-progress --out $L/warm > $L/warm-up.log 2>&1
  core=1
  for graph in email-Enron ca-HepPh; do for order in file shuffle; do
    ( for rep in 1 2; do
        b $core 120 --tag rf-$graph-$order-r$rep --graphs $graph $([ $order = shuffle ] && echo --shuffle 1) --patterns triangle 4-cycle diamond 4-clique house --time-limit 8 > $L/rf-$graph-$order-r$rep.log 2>&1
      done ) &
    core=$((core + 1))
  done; done
  ( for order in file shuffle; do
      NUMBA_NUM_THREADS=1 taskset -c 5 timeout 100 python3 -m deltamatch.cli bench --no-plots --no-progress --out $L --tag rf6-onoff-$order --graphs email-Enron $([ $order = shuffle ] && echo --shuffle 1) --batch 1000 --patterns 4-cycle diamond --engines cpu-1 cpu-1-nofuse --time-limit 8 > $L/rf6-onoff-$order.log 2>&1
    done ) &
  wait
) &
rf=$!
taskset -c 8-15 timeout 260 python3 bench/gpu/service_latency.py --out $OUT --backend cuda --parts a --crossover 0 --local 1e18 --batches-a 60 --direct-channel on,off --time-budget 240 > $OUT/service-latency.log 2>&1; echo "latency rc $?" >> $OUT/service-latency.log
s=$(date +%s); taskset -c 8-15 timeout 70 python3 bench/gpu/service_e2e.py > $OUT/service-e2e.log 2>&1; echo "e2e rc $? after $(($(date +%s) - s)) s" >> $OUT/service-e2e.log
taskset -c 8-15 timeout 150 ncu --clock-control none --kernel-name regex:match_ --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio python3 bench/gpu/ncu_batch.py --scale 20 --size 1000 --patterns diamond,4-cycle --balances all > $OUT/ncu-batch.log 2>&1; echo "ncu rc $?" >> $OUT/ncu-batch.log
wait $rf
rm -f $L/*batches.csv; rm -rf $L/warm; tar czf $OUT/rf.tgz -C $OUT logs && rm -rf $L
head -2 $OUT/device.txt
grep -vE "^\s*$" $OUT/service-latency.log | grep -E "end to end|channel|p50|^\| |rc" | head -30
grep -v "logging.cc\|^ *@\|PC: @\|SIGTERM" $OUT/service-e2e.log | grep -E "^v[0-9]|PASS|FAIL|rc" | cut -c1-60
grep -E "match_|gpu__time|grid_size|registers|warps_active|thread_inst|hit_rate|dram__|stalled|rc|matches" $OUT/ncu-batch.log | head -40
x() { tar xzf $OUT/rf.tgz -O logs/$1; }
for f in email-Enron-file email-Enron-shuffle ca-HepPh-file ca-HepPh-shuffle; do for r in 1 2; do echo "== $f r$r"; x rf-$f-r$r.log | grep -E "^==|^cpu-1" | awk '{print $1, $2, $3, $4, $7}' | paste - - ; done; done
for o in file shuffle; do echo "== onoff $o"; x rf6-onoff-$o.log | grep -E "^==|^cpu-1" | awk '{print $1, $3, $4, $7}'; done
