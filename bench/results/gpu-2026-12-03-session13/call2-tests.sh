#!/usr/bin/env bash
# Session 13, call 2's GPU tests again, warm (call 2's ran out of its 200 s compiling cold).
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 DM_COMMIT=$(cat .commit); { date -u; echo "commit $(cat .commit)"; } > $OUT/device.txt
s=$(date +%s); timeout 400 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf tests/kernels/test_cuda_engine.py tests/workers/test_cuda_backend.py tests/workers/test_triangle_table.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc $? after $(($(date +%s) - s)) s" >> $OUT/gpu-tests.log
