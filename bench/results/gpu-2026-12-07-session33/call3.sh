#!/usr/bin/env bash
# Session 33, device call 3: the service end to end with the joint count on by default (two CUDA
# workers sharing the card, mixed batches checked against a CPU replica), then where a joint
# batch's time goes (timeline.py --joint: RMAT-20, batches of 1,000 with 10% deletions, the
# 4-clique and the matched diamond; device time against wall, the step clock, a CUDA graph's
# replay of each joint count) and the same batches apart for reference.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
timeout 120 python3 bench/gpu/service_e2e.py > $OUT/service-e2e.log 2>&1
echo "e2e rc $? at $(elapsed) s"; tail -1 $OUT/service-e2e.log
tl() {  # name, extra args
  timeout 150 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 6 --delete-fraction 0.1 \
    --patterns 4-clique,diamond --top 8 "${@:2}" > $OUT/timeline-$1.log 2>&1
  echo "timeline $1 rc $? at $(elapsed) s"; grep -E "^steady|^step clock|^  +[0-9.]+ +x[0-9. ]+\(wall|^graph replay" $OUT/timeline-$1.log
}
tl joint --joint --step-clock 30 --graph-replay 30
tl apart --step-clock 30
