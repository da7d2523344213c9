#!/usr/bin/env bash
# Session 12, device call 4 (warm; commit f4b42b4; carry .devbundle, .commit, data): the service's
# per-batch latency and the routing thresholds (bench/gpu/service_latency.py, parts a-c).
DEVCHECK_STEPS=latency LATENCY_TIMEOUT=420 LATENCY_ARGS="--time-budget 360" DM_COMMIT=$(cat .commit) OUT=$OUT bash scripts/device-check.sh > $OUT/run.log 2>&1; echo "rc $?"; tail -40 $OUT/service-latency.log | cut -c1-220
