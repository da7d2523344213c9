#!/usr/bin/env bash
# Session 15, device call 1 (device-check.sh's "script" step, after its "tests" step): Nsight
# Compute's full set on the long launches of one RMAT-20 4-cycle batch of 10^4 inserts, with the
# per-instruction (SASS) stall samples, to find where the 4-cycle's pairs spend their time.
ncu --clock-control none --kernel-name regex:match_ --launch-count 3 --set full -o $OUT/cycle \
  python3 bench/gpu/ncu_batch.py --size 10000 --patterns 4-cycle --balances all > $OUT/ncu-run.log 2>&1
ncu -i $OUT/cycle.ncu-rep --print-summary none > $OUT/ncu-details.log 2>&1
ncu -i $OUT/cycle.ncu-rep --page source --csv --print-source sass > $OUT/ncu-sass.csv 2>&1
gzip -f $OUT/ncu-sass.csv; rm -f $OUT/cycle.ncu-rep
grep -E "match_|Duration|Warp Cycles Per Issued|Issued Ipc|Achieved Occupancy|L1/TEX Hit|L2 Hit|Memory Throughput|Registers" $OUT/ncu-details.log | head -60
