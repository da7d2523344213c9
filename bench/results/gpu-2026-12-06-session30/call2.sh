#!/usr/bin/env bash
# Session 30, device call 2 (the chunk order's counting sort over the whole grid, after call 1
# found the one-block sort at 2.6 ms), cut to what the session's last 315 s of device time hold:
# the two builds of match.cu a count of these batches loads, compiled side by side; the chunk
# test; issue 13's recount ratio at 1,000 on RMAT-20 (the 4-clique and the diamond, five batches a
# cell, GPU only), inserts; then the engine's balance tests that cut deferred sets into cost chunks
# (352 of its 1,747), as many as the call's time holds.
set -u
t0=$(date +%s)
timeout 110 python3 -c "
import sys; sys.path.insert(0, 'bench/gpu')
from compile_builds import compile_all
compile_all([(False, ()), (False, ('DM_PAIR_HASH=0',))], jobs=2)" > $OUT/compile.log 2>&1
echo "compile rc $? at $(( $(date +%s) - t0 )) s"; tail -3 $OUT/compile.log
timeout 40 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py -k "deferred_sets" > $OUT/gpu-tests-chunks.log 2>&1
echo "chunk test rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/gpu-tests-chunks.log | cut -c1-300
timeout 75 python3 bench/gpu/bench_gpu.py --out $OUT/bench-0 --ablation "" --no-counters --no-relabel \
  --no-static --no-cpu --scales 20 --sizes 1000 --batches 5 --patterns diamond,4-clique \
  --batch-budget 10 --time-budget 65 > $OUT/bench-0.log 2>&1
echo "bench rc $? at $(( $(date +%s) - t0 )) s"; grep -A4 "^summary" $OUT/bench-0.log | cut -c1-160
timeout 100 python3 -m pytest -q -m gpu -p no:cacheprovider tests/kernels/test_cuda_engine.py \
  -k "every_balance and (split1 or mink5 or setcost0) and not chunk3" > $OUT/gpu-tests-split.log 2>&1
echo "split tests rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/gpu-tests-split.log | cut -c1-300
