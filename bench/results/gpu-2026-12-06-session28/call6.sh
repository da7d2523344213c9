#!/usr/bin/env bash
# Session 28, device call 6 (after device-check.sh's compile step: numba's cache, the carried CuPy cache): the count's host path trimmed (a short host task list's heavy-first
# order uploaded in the tasks' copy; the deferred sets' length read from the arena's fill, without
# a wait) -- every engine GPU test and the rest, the timeline of a RMAT-20 batch of 1,000 again
# (call 3 read the 4-clique's count at 1.51 ms of plain wall), then issue 19's Nsight Compute
# figures at the new defaults (all: 4-vertex patterns split alone, match_tasks) beside allk4.
set -u
t0=$(date +%s)
timeout 150 python3 -m pytest -q -m gpu -p no:cacheprovider -x tests/kernels/test_cuda_engine.py > $OUT/gpu-tests-engine.log 2>&1
echo "engine tests rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/gpu-tests-engine.log
timeout 60 python3 -m pytest -q -m gpu -p no:cacheprovider tests/workers/test_cuda_backend.py tests/workers/test_triangle_table.py \
  tests/bench/test_rmat.py tests/scheduler/test_warmup.py tests/test_api.py > $OUT/gpu-tests-rest.log 2>&1
echo "rest tests rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/gpu-tests-rest.log
timeout 60 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --patterns 4-clique,diamond --host-profile 10 > $OUT/timeline.log 2>&1
echo "timeline rc $? at $(( $(date +%s) - t0 )) s"; grep -E "^(steady|host)" $OUT/timeline.log
M=gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio
timeout 90 ncu --clock-control none --kernel-name regex:match_ --metrics $M python3 bench/gpu/ncu_batch.py --scale 20 --size 1000 \
  --patterns 4-clique,4-cycle --balances all,allk4 > $OUT/ncu-1000.log 2>&1
echo "ncu rc $? at $(( $(date +%s) - t0 )) s"
grep -E "^(4-|diamond)|match_|duration|grid_size|registers|warps_active|thread_inst" $OUT/ncu-1000.log | sed -E 's/ +/ /g' | cut -c1-120
