#!/usr/bin/env bash
# Session 27, device call 4: where the 4-cycle's pair loop stalls now, with the pair filter
# (Nsight Compute with line tables, RMAT-20, 10^4 inserts, phase 1), and PGMiner's ablation with
# the kernel's counters at today's defaults (RMAT-20, one batch of 1,000 and of 10^4).
set -u
bash .devbundle/install.sh >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD CUPY_CACHE_DIR=$PWD/.cupy-cache PYTHONUNBUFFERED=1 DM_COMMIT=$(cat .commit)
mkdir -p .cupy-cache && tar xzf .cupy-cache.tgz -C .cupy-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit $(cat .commit)"; date -u; } > $OUT/device.txt
t0=$(date +%s)
mkdir -p $OUT/profile
timeout 180 ncu --clock-control none --kernel-name regex:match_ --import-source yes --launch-skip 1 --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section WarpStateStats --section SourceCounters \
  -f -o $OUT/profile/match python3 bench/gpu/ncu_batch.py --lineinfo --scale 20 --size 10000 --patterns 4-cycle \
  --balances all > $OUT/profile.log 2>&1
echo "ncu rc $? at $(( $(date +%s) - t0 )) s"
ncu --import $OUT/profile/match.ncu-rep --page details > $OUT/profile/details.txt 2>&1
ncu --import $OUT/profile/match.ncu-rep --page source --csv --print-source sass > $OUT/profile/sass.csv 2>&1
grep -E "Duration|Registers|Achieved Occupancy|Warp Cycles Per Issued|Memory Throughput|L2 Cache Throughput" $OUT/profile/details.txt | head
rm -f $OUT/profile/match.ncu-rep
timeout 250 python3 bench/gpu/bench_gpu.py --out $OUT/ablation --scales 20 --sizes 1000,10000 --batches 1 \
  --patterns 4-clique,diamond,4-cycle --ablation none,split,unroll --counters --batch-budget 10 --static-budget 1 \
  --no-cpu --no-static --no-relabel --time-budget 230 > $OUT/bench-ablation.log 2>&1
echo "ablation rc $? at $(( $(date +%s) - t0 )) s"
grep -E "^  batch|^summary" $OUT/bench-ablation.log | cut -c1-260 | head -60
(cd $OUT && tar czf runs.tgz ablation profile/sass.csv && rm -rf ablation profile/sass.csv)
