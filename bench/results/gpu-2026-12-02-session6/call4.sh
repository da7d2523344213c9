#!/usr/bin/env bash
# Session 6, device call 4: bench/gpu/timeline.py: where a 1,000-edge RMAT batch's GPU wall time goes
# (kernels by name, idle gaps), graph update and count, RMAT-20 (4-clique, diamond, 4-cycle) and
# RMAT-22 (4-clique, 10% deletions).
set -u
bash .devbundle/install.sh >/dev/null 2>&1; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
timeout 150 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 4 --patterns 4-clique,diamond,4-cycle --top 8 2>&1 | grep -v "^\[W\|Warning\|warn" | tee $OUT/timeline-20.log | tail -80
timeout 150 python3 bench/gpu/timeline.py --scale 22 --batch 1000 --batches 3 --delete-fraction 0.1 --patterns 4-clique --top 8 2>&1 | grep -v "^\[W\|Warning\|warn" | tee $OUT/timeline-22.log | tail -30
