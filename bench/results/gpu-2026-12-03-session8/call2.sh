#!/usr/bin/env bash
# Session 8, device call 2: issue 16's part (c), email-Enron 1,000-edge batches, five patterns, each
# route forced (gpu, cpu, local) and then auto with the thresholds measured from them
# (bench/gpu/service_latency.py --parts c: four services, two CUDA workers sharing the card).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data
{ date -u; echo "commit $(cat .commit)"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
timeout 540 python3 bench/gpu/service_latency.py --out $OUT --backend cuda --parts c --batches-c 8 --time-budget 500 > $OUT/service-latency.log 2>&1; echo "latency rc $?" >> $OUT/service-latency.log
head -2 $OUT/device.txt
grep -vE "^\s*$" $OUT/service-latency.log | grep -E "ready|measured|^\(c\)|^\| |thresholds|rows|rc|FAIL|stopped" | head -40
