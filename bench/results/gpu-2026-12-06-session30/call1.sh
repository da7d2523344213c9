#!/usr/bin/env bash
# Session 30, device call 1: where a RMAT-20 batch of 1,000 spends its host time, step by step
# (timeline.py --step-clock: the 4-clique's and the diamond's counts and the update), and what a
# count would take with its launches replayed as one CUDA graph (--graph-replay); first with the
# package as it was before the chunk slots' scan and order moved into match.cu (old/, 39d0fe3's
# deltamatch/ swapped in place, so that its builds come from the carried cache), then with them
# (after compile_builds.py), and the chunk test.
set -u
t0=$(date +%s)
mv deltamatch /tmp/deltamatch-new && cp -r old/deltamatch deltamatch
timeout 150 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --patterns 4-clique,diamond \
  --host-profile 20 --step-clock 100 --graph-replay 100 > $OUT/timeline-old.log 2>&1
echo "timeline old rc $? at $(( $(date +%s) - t0 )) s"
rm -rf deltamatch && mv /tmp/deltamatch-new deltamatch
timeout 240 python3 bench/gpu/compile_builds.py > $OUT/compile.log 2>&1
echo "compile rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/compile.log
timeout 60 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py -k "deferred_sets" > $OUT/gpu-tests-chunks.log 2>&1
echo "chunk test rc $? at $(( $(date +%s) - t0 )) s"; tail -3 $OUT/gpu-tests-chunks.log
timeout 150 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --patterns 4-clique,diamond \
  --host-profile 20 --step-clock 100 --graph-replay 100 > $OUT/timeline-new.log 2>&1
echo "timeline new rc $? at $(( $(date +%s) - t0 )) s"
for tree in old new; do echo "== $tree"; grep -E "^(steady|host|step|graph|  +[0-9.]+  x)" $OUT/timeline-$tree.log | grep -v "ms  x"; done
