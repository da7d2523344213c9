#!/usr/bin/env bash
# Session 30, device call 1: where a RMAT-20 batch of 1,000 spends its host time, step by step
# (timeline.py --step-clock: the 4-clique's and the diamond's counts and the update), and what a
# count would take with its launches replayed as one CUDA graph (--graph-replay); first with the
# package as it was at the session's start (old/, 39d0fe3's deltamatch/ swapped in place, so that
# its builds come from the carried cache), then with this session's host path (after
# compile_builds.py); host_costs.py; every GPU test of the engine.
set -u
t0=$(date +%s)
mv deltamatch /tmp/deltamatch-new && cp -r old/deltamatch deltamatch
timeout 120 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --patterns 4-clique,diamond \
  --host-profile 20 --step-clock 100 --graph-replay 100 > $OUT/timeline-old.log 2>&1
echo "timeline old rc $? at $(( $(date +%s) - t0 )) s"
rm -rf deltamatch && mv /tmp/deltamatch-new deltamatch
timeout 200 python3 bench/gpu/compile_builds.py > $OUT/compile.log 2>&1
echo "compile rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/compile.log
timeout 120 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --patterns 4-clique,diamond \
  --host-profile 20 --step-clock 100 --graph-replay 100 > $OUT/timeline-new.log 2>&1
echo "timeline new rc $? at $(( $(date +%s) - t0 )) s"
for tree in old new; do echo "== $tree"; grep -E "^(steady|host|step|graph|  capture|  +[0-9.]+  x)" $OUT/timeline-$tree.log | grep -v "ms  x"; done
timeout 40 python3 bench/gpu/host_costs.py --reps 200 > $OUT/host-costs.log 2>&1
echo "host_costs rc $? at $(( $(date +%s) - t0 )) s"; cat $OUT/host-costs.log
timeout 110 python3 -m pytest -q -m gpu -p no:cacheprovider --maxfail=3 tests/kernels/test_cuda_engine.py > $OUT/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(( $(date +%s) - t0 )) s"; tail -5 $OUT/gpu-tests-engine.log
