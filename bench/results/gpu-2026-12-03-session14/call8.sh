#!/usr/bin/env bash
# Session 14, device call 8 (through device-check.sh's "script" step, .cupy-cache carried): uploads
# from pinned memory, queued on the stream. The upload tests and the backend's GPU tests, then the
# host profile of the update and of a 4-clique count (call 6 for before).
s=$(date +%s)
timeout 120 python3 -m pytest -q -m gpu -p no:cacheprovider --tb=short -rf -x tests/workers/test_cuda_backend.py \
  "tests/kernels/test_cuda_engine.py::test_upload_gives_views_equal_to_the_arrays_whatever_their_dtypes" \
  "tests/kernels/test_cuda_engine.py::test_an_upload_holds_its_pinned_buffer_until_its_copy_is_done" > $OUT/gpu-tests.log 2>&1
echo "pytest rc $? after $(($(date +%s) - s)) s" >> $OUT/gpu-tests.log
grep -E "FAILED|ERROR" $OUT/gpu-tests.log | head; tail -2 $OUT/gpu-tests.log
s=$(date +%s)
timeout 45 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --patterns 4-clique --host-profile 20 --top 8 > $OUT/timeline.log 2>&1
echo "timeline rc $? after $(($(date +%s) - s)) s" >> $OUT/timeline.log
grep -E "^(steady|host)|rc " $OUT/timeline.log
