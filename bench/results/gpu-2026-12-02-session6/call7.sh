#!/usr/bin/env bash
# Session 6, device call 7 (the budget's last minutes): issue 16's 100-edge triangle latency on the local
# route alone on the machine (call 6 ran it beside five RapidFlow runs, load average 5.06).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0
echo "commit $(cat .commit)"
timeout 75 python3 bench/gpu/service_latency.py --out $OUT --backend cuda --parts a --crossover 0 --local 1e18 --batches-a 80 --time-budget 60 2>&1 | grep -v "logging.cc\|^ *@\|PC: @\|SIGTERM" | tail -20
