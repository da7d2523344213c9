#!/usr/bin/env bash
# Written in session 34 as its call 2, NOT RUN (carry next-engine.sh's CuPy cache, or compile
# first): the GPU tests outside the engine's (the device graph, kept triangles, the CUDA replica's
# batches apart and joint, the service's GPU paths), then session 33's next-joint.sh: the service
# end to end with the joint count on (the rebuilt bundle), the deletions' update queued behind a
# joint count against after it (timeline.py --joint --ab-reps), and the 4-clique's joint batches
# with the kernel's counters.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
python3 -c "import sys; sys.path.insert(0, 'bench/gpu'); from compile_builds import compile_cpu_engine; compile_cpu_engine()" \
  > $OUT/numba.log 2>&1
echo "numba at $(elapsed) s"
timeout 90 python3 -m pytest -q -m gpu -p no:cacheprovider tests/workers/test_triangle_table.py tests/workers/test_cuda_backend.py \
  tests/bench/test_rmat.py tests/scheduler/test_warmup.py tests/test_api.py > $OUT/gpu-tests-rest.log 2>&1
echo "rest tests rc $? at $(elapsed) s"; tail -2 $OUT/gpu-tests-rest.log; grep -E "^FAILED" $OUT/gpu-tests-rest.log | head
bash bench/results/gpu-2026-12-07-session33/next-joint.sh
