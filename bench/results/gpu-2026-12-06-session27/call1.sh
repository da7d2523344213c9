#!/usr/bin/env bash
# Session 27, device call 1: where the 4-cycle's pair loop stalls (Nsight Compute with line tables
# on RMAT-20, 10^4 inserts, phase 1), and issue 13's deletion rows with the CPU engine's least time
# of three runs, under hub bitmaps from degree 256 and from 64 (today's default) in one call.
set -u
bash .devbundle/install.sh >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD CUPY_CACHE_DIR=$PWD/.cupy-cache PYTHONUNBUFFERED=1 DM_COMMIT=$(cat .commit)
mkdir -p .cupy-cache && tar xzf .cupy-cache.tgz -C .cupy-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit $(cat .commit)"; date -u; } > $OUT/device.txt
t0=$(date +%s)
mkdir -p $OUT/profile
timeout 200 ncu --clock-control none --kernel-name regex:match_ --import-source yes --launch-skip 1 --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section WarpStateStats --section SourceCounters \
  -f -o $OUT/profile/match python3 bench/gpu/ncu_batch.py --lineinfo --scale 20 --size 10000 --patterns 4-cycle \
  --balances all > $OUT/profile.log 2>&1
echo "ncu rc $? at $(( $(date +%s) - t0 )) s"
ncu --import $OUT/profile/match.ncu-rep --page details > $OUT/profile/details.txt 2>&1
ncu --import $OUT/profile/match.ncu-rep --page source --csv --print-source cuda > $OUT/profile/source.csv 2>&1
echo "source rc $? lines $(wc -l < $OUT/profile/source.csv)"
ncu --import $OUT/profile/match.ncu-rep --page source --csv --print-source sass > $OUT/profile/sass.csv 2>&1
echo "sass rc $? lines $(wc -l < $OUT/profile/sass.csv)"
grep -E "Duration|Registers|Achieved Occupancy|Warp Cycles Per Issued" $OUT/profile/details.txt | head
for hub in 256 64; do
  timeout 170 python3 bench/gpu/bench_gpu.py --out $OUT/deletions-hub$hub --ablation "" --no-counters --no-relabel \
    --no-static --scales 20,22 --sizes 1000,10000 --batches 2 --delete-fraction 0.1 --patterns 4-cycle,diamond,4-clique \
    --batch-budget 10 --static-budget 3 --cpu-limit 40 --cpu-when-gpu-under 12 --cpu-repeats 3 --hub-min-degree $hub \
    --time-budget 160 > $OUT/bench-deletions-hub$hub.log 2>&1
  echo "bench hub $hub rc $? at $(( $(date +%s) - t0 )) s"
  grep -A30 "^summary" $OUT/bench-deletions-hub$hub.log | cut -c1-220; grep -c MISMATCH $OUT/bench-deletions-hub$hub.log
done
(cd $OUT && tar czf runs.tgz deletions-hub* profile/*.csv profile/details.txt && rm -rf deletions-hub*)
ls -la $OUT/profile
