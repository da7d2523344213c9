#!/usr/bin/env bash
# Session 7, device call 5: issue 16's 100-edge triangle batches on the local route, the direct
# channel on and off, alone on the machine (call 4 ran them beside five RapidFlow comparisons).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
timeout 330 python3 bench/gpu/service_latency.py --out $OUT --backend cuda --parts a --crossover 0 --local 1e18 --batches-a 200 --direct-channel on,off,on --time-budget 320 > $OUT/service-latency.log 2>&1; echo "latency rc $?" >> $OUT/service-latency.log
head -2 $OUT/device.txt
grep -vE "^\s*$" $OUT/service-latency.log | grep -E "end to end|ready|^\| (http|matching|scheduler_call|log|allocation|graph_update|intake|request|merge) |^\| (on|off) |channel|rc|skipped|budget" | head -40
