#!/usr/bin/env bash
# Session 6, device call 5: the host-planned graph update, cached device plans, host task order,
# kernel chunk cutting and host-side feature degrees under the GPU tests (CUDA engine parity, the
# backend, the warm-up), then bench/gpu/timeline.py again (call 4 was before) and the service end to end.
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DELTAMATCH_DATA=$PWD/data
echo "commit $(cat .commit)"
s=$(date +%s); timeout 330 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf -x tests/workers/test_cuda_backend.py tests/kernels/test_cuda_engine.py tests/scheduler/test_warmup.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc $? after $(($(date +%s) - s)) s" >> $OUT/gpu-tests.log
grep -v "^\.*\s*\[" $OUT/gpu-tests.log | tail -25
timeout 120 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 4 --patterns 4-clique,diamond,4-cycle --top 6 2>&1 | grep -v "^\[W\|Warning\|warn" > $OUT/timeline-20.log; grep -E "^steady|^first|rmat" $OUT/timeline-20.log
s=$(date +%s); timeout 100 python3 bench/gpu/service_e2e.py > $OUT/service-e2e.log 2>&1; echo "e2e rc $? after $(($(date +%s) - s)) s" >> $OUT/service-e2e.log
grep -v "logging.cc\|^ *@\|PC: @\|SIGTERM" $OUT/service-e2e.log | tail -6
