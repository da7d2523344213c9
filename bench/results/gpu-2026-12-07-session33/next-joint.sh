#!/usr/bin/env bash
# Written in session 33 as its call 4, NOT RUN (no device machine came for it): the service end to
# end with the joint count on by default (the device bundle rebuilt with fastapi-offline and
# prometheus-client, which call 3's lacked), then whether the deletions' update queued behind a
# joint count's launches hides its host time (timeline.py --joint: RMAT-20, batches of 1,000 with
# 10% deletions; the 4-clique and the matched diamond, the update queued behind the count and after
# it, interleaved), then the 4-clique's joint batches with the kernel's counters (lanes, per-warp
# busy spread).
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 150 python3 bench/gpu/service_e2e.py > $OUT/service-e2e.log 2>&1
echo "e2e rc $? at $(elapsed) s"; grep -v "logging.cc" $OUT/service-e2e.log | tail -4
timeout 120 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 4 --delete-fraction 0.1 \
  --patterns 4-clique,diamond --top 6 --joint --ab-reps 40 > $OUT/timeline-overlap.log 2>&1
echo "timeline rc $? at $(elapsed) s"; grep -E "^steady|^deletions" $OUT/timeline-overlap.log
timeout 90 python3 bench/gpu/bench_gpu.py --out $OUT/bench-counters --ablation "" --no-relabel --no-static --no-cpu \
  --sizes 1000 --batch-budget 10 --time-budget 80 --delete-fraction 0.1 --scales 20 --batches 5 \
  --patterns 4-clique --no-kept-triangles > $OUT/bench-counters.log 2>&1
echo "bench rc $? at $(elapsed) s"; grep -E "^  batch" $OUT/bench-counters.log | cut -c1-260; grep -A3 "^summary" $OUT/bench-counters.log
