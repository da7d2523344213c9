#!/usr/bin/env bash
# Session 35, call 12: call 11's test step spent its 100 s compiling the CPU engine (numba: 71 s
# on call 1's fresh machine; calls 10 and 11 started fresh machines without compile_builds.py), so
# the CPU engine first, then the last 7% of the engine GPU tests (call11-tests.txt); numba's cache
# comes back as numba-cache.tgz for later calls.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
python3 -c "import sys; sys.path.insert(0, 'bench/gpu'); from compile_builds import compile_cpu_engine; print(compile_cpu_engine())" \
  > $OUT/numba.log 2>&1
echo "numba rc $? at $(elapsed) s"; tail -1 $OUT/numba.log
xargs -a bench/results/gpu-2026-12-07-session35/call11-tests.txt timeout 90 python3 -m pytest -q -m gpu \
  -p no:cacheprovider > $OUT/gpu-tests-engine-rest.log 2>&1
echo "engine tests rc $? at $(elapsed) s"; tail -2 $OUT/gpu-tests-engine-rest.log; grep -E "^FAILED|Error" $OUT/gpu-tests-engine-rest.log | head
find deltamatch -name "*.nbi" -o -name "*.nbc" | tar czf $OUT/numba-cache.tgz -T - 2>/dev/null
