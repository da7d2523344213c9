#!/usr/bin/env bash
# Session 31, device call 3: where a batch with 10% deletions spends its time (RMAT-20, 1,000,
# the 4-clique and the diamond; timeline.py's kernel table and step clock).
set -u
timeout 90 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 \
  --patterns 4-clique,diamond --kept-triangles --step-clock 30 > $OUT/timeline-del.log 2>&1
echo "timeline rc $?"
grep -E "^(steady|step)|^ +[0-9.]+ +x" $OUT/timeline-del.log | head -120
