#!/usr/bin/env bash
# Session 5, device call 7 (c928dae): call 6's logs of these two did not come back (too many files):
# the service end to end on two CUDA workers alone, then the CUDA hot-path warm-up test; their
# output goes to stdout (the call's output tail).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data DM_COMMIT=c928dae
s=$(date +%s); timeout 110 python3 bench/gpu/service_e2e.py 2>&1 | grep -v "logging.cc\|^ *@\|PC: @\|SIGTERM" | tail -25; echo "e2e rc ${PIPESTATUS[0]} after $(($(date +%s) - s)) s"
timeout 80 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=line -rf tests/scheduler/test_warmup.py 2>&1 | tail -8
