#!/usr/bin/env bash
# Session 30, device call 1: issue 13's recount ratio at 1,000 on RMAT-20 (the 4-clique and the
# diamond, inserts, five batches a cell, GPU only) with the package as it was at the session's
# start (old/: 39d0fe3's deltamatch/ swapped in place, so that its builds come from the carried
# cache) and with this session's host path (after compile_builds.py) on one machine; every GPU test
# of the engine; where a count's and an update's host time goes, step by step (timeline.py
# --step-clock), and what a count takes with its launches replayed as one CUDA graph
# (--graph-replay); host_costs.py.
set -u
t0=$(date +%s)
bench() {
  timeout 80 python3 bench/gpu/bench_gpu.py --out $OUT/bench-$1-0 --ablation "" --no-counters --no-relabel \
    --no-static --no-cpu --scales 20 --sizes 1000 --batches 5 --patterns diamond,4-clique \
    --batch-budget 10 --time-budget 70 > $OUT/bench-$1-0.log 2>&1
  echo "bench $1 rc $? at $(( $(date +%s) - t0 )) s"; grep -A4 "^summary" $OUT/bench-$1-0.log | cut -c1-160
}
mv deltamatch /tmp/deltamatch-new && cp -r old/deltamatch deltamatch
bench old
rm -rf deltamatch && mv /tmp/deltamatch-new deltamatch
timeout 200 python3 bench/gpu/compile_builds.py > $OUT/compile.log 2>&1
echo "compile rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/compile.log
timeout 100 python3 -m pytest -q -m gpu -p no:cacheprovider --maxfail=3 tests/kernels/test_cuda_engine.py > $OUT/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(( $(date +%s) - t0 )) s"; tail -5 $OUT/gpu-tests-engine.log
bench new
timeout 80 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --patterns 4-clique,diamond \
  --kept-triangles --step-clock 50 --graph-replay 50 > $OUT/timeline-new.log 2>&1
echo "timeline rc $? at $(( $(date +%s) - t0 )) s"
grep -E "^(steady|step|graph|  capture|  +[0-9.]+  x)" $OUT/timeline-new.log | grep -v "ms  x"
timeout 30 python3 bench/gpu/host_costs.py --reps 200 > $OUT/host-costs.log 2>&1
echo "host_costs rc $? at $(( $(date +%s) - t0 )) s"; cat $OUT/host-costs.log
