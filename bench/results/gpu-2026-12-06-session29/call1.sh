#!/usr/bin/env bash
# Session 29, device call 1: where a RMAT-20 batch of 1,000 spends its host time -- the host cost
# of each CuPy step (host_costs.py); the timeline (cProfile by cumulative time) of the 4-clique's
# count, the diamond's and the update at HEAD (old/: a copy of HEAD's deltamatch/ and bench/gpu/,
# its CuPy builds in the carried cache) and with the chunks in fixed slots (no wait for their
# number; phase 1 queued behind phase 0) and the pinned uploads; then the GPU tests of the chunks and the uploads.
set -u
t0=$(date +%s)
timeout 100 python3 bench/gpu/host_costs.py --reps 200 > $OUT/host-costs.log 2>&1
echo "host_costs rc $? at $(( $(date +%s) - t0 )) s"; cat $OUT/host-costs.log
for tree in old new; do
  dir=.; [ $tree = old ] && dir=old
  timeout 150 python3 $dir/bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --patterns 4-clique,diamond \
    --host-profile 10 --profile-sort cumulative --top 20 > $OUT/timeline-$tree.log 2>&1
  echo "timeline $tree rc $? at $(( $(date +%s) - t0 )) s"; grep -E "^(steady|host)" $OUT/timeline-$tree.log
done
timeout 120 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py -k "deferred_sets or upload" > $OUT/gpu-tests-chunks.log 2>&1
echo "chunk tests rc $? at $(( $(date +%s) - t0 )) s"; tail -3 $OUT/gpu-tests-chunks.log
