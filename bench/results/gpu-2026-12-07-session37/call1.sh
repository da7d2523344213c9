#!/usr/bin/env bash
# Session 37, call 1 (session 36's next.sh): STABLE_SCRATCH off in a process of its own against on,
# on new batches (the 4-clique, RMAT-20, 1,000 with 10% deletions, joint; pieces on and off),
# READ_AHEAD on and off interleaved on new batches, then every engine GPU test and the other GPU
# tests.  Carry [".devbundle", ".commit"].
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
L=$OUT/logs  # a folder: device-check.sh packs it into outputs.tgz (loose files past a count are lost)
mkdir -p $L
timeout 200 python3 bench/gpu/compile_builds.py > $L/compile.log 2>&1
echo "compile rc $? at $(elapsed) s"; tail -1 $L/compile.log
# STABLE_SCRATCH off in a process of its own (interleaved with on, the pool's rounded blocks serve
# the off side too: session 36's call 3), then on, each on new batches.
for stable in False True; do
  timeout 90 python3 -c "import runpy, sys; sys.path.insert(0, 'bench/gpu')
from deltamatch.kernels import cuda_engine; cuda_engine.STABLE_SCRATCH = $stable
sys.argv = ['timeline.py'] + sys.argv[1:]; runpy.run_path('bench/gpu/timeline.py', run_name='__main__')" \
    --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint --patterns 4-clique --ab-reps 3 \
    --pipeline 20 --pipeline-fresh --pipeline-balances all,nopieces > $L/timeline-fresh-stable-$stable.log 2>&1
  echo "timeline fresh STABLE_SCRATCH=$stable rc $? at $(elapsed) s"; grep -A5 "^pipeline" $L/timeline-fresh-stable-$stable.log
done
# READ_AHEAD (new): a joint count's results read before the deletions queued behind it, on new batches.
timeout 90 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 --joint \
  --patterns 4-clique --ab-reps 3 --pipeline 20 --pipeline-fresh --pipeline-ab READ_AHEAD --pipeline-balances all \
  > $L/timeline-read-ahead.log 2>&1
echo "read ahead rc $? at $(elapsed) s"; grep -A5 "^pipeline" $L/timeline-read-ahead.log
timeout 250 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py \
  > $L/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(elapsed) s"; tail -2 $L/gpu-tests-engine.log; grep -E "^FAILED" $L/gpu-tests-engine.log | head
timeout 50 python3 -m pytest -q -m gpu -p no:cacheprovider tests/workers/test_cuda_backend.py \
  tests/workers/test_triangle_table.py tests/bench/test_rmat.py tests/scheduler/test_warmup.py tests/test_api.py \
  > $L/gpu-tests-rest.log 2>&1
echo "rest tests rc $? at $(elapsed) s"; tail -2 $L/gpu-tests-rest.log
# The second call: call2.sh.
