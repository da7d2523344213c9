#!/usr/bin/env bash
# Session 5, device call 5 (cca8439, issue-16c merged): the CUDA hot-path warm-up test (the row
# relocation now in the warm-up), the service end to end on two CUDA workers, and the per-batch
# latency benchmark (issue 16).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data DM_COMMIT=cca8439
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; } > $OUT/device.txt
timeout 100 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short tests/scheduler/test_warmup.py > $OUT/warmup-tests.log 2>&1; echo "rc $?" >> $OUT/warmup-tests.log
timeout 100 python3 bench/gpu/service_e2e.py > $OUT/service-e2e.log 2>&1; echo "e2e rc $?" >> $OUT/service-e2e.log
DEVCHECK_STEPS=latency LATENCY_ARGS="--time-budget 170" LATENCY_TIMEOUT=200 bash scripts/device-check.sh > $OUT/latency-step.log 2>&1
tail -2 $OUT/warmup-tests.log; tail -1 $OUT/service-e2e.log; tail -5 $OUT/latency-step.log
