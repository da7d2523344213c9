#!/usr/bin/env bash
# Session 26, device call 5: why the 4-cycle at 10^4 is 8.4-8.9x the CPU engine and no threshold
# moves it (call 4): Nsight Compute's speed of light, memory, occupancy and warp stalls of its two
# launches on RMAT-20; and the 4-clique's 1.10x under hub bitmaps down to degree 64 checked again.
set -u
bash .devbundle/install.sh >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD CUPY_CACHE_DIR=$PWD/.cupy-cache PYTHONUNBUFFERED=1 DM_COMMIT=$(cat .commit)
mkdir -p .cupy-cache && tar xzf .cupy-cache.tgz -C .cupy-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit $(cat .commit)"; date -u; } > $OUT/device.txt
t0=$(date +%s)
timeout 90 python3 -u bench/gpu/balance_sweep.py --scale 20 --batch 10000 --batches 2 --repeats 5 \
  --patterns 4-clique --settings "hub64:HUB_MIN_DEGREE=64;chunk16:AUTO_CHUNK_SHARE=16" > $OUT/sweep-4clique.log 2>&1
echo "sweep rc $? at $(( $(date +%s) - t0 )) s"; grep -A4 "^4-clique:" $OUT/sweep-4clique.log
timeout 240 ncu --clock-control none --kernel-name regex:match_ --launch-count 2 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats \
  python3 bench/gpu/ncu_batch.py --scale 20 --size 10000 --patterns 4-cycle --balances all > $OUT/ncu-4cycle-10k.log 2>&1
echo "ncu rc $? at $(( $(date +%s) - t0 )) s"
grep -E "match_|Duration|Throughput|Achieved Occupancy|Theoretical Occupancy|Registers|Warp Cycles Per Issued|Stall|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Block Limit|Waves" $OUT/ncu-4cycle-10k.log | head -60
