#!/usr/bin/env bash
# Session 14, device call 4 (run through device-check.sh's "script" step): the #13 table with the
# thread-per-entry copy_rows (RMAT-20/22 at 1,000 and 10^4; RMAT-20 with 10% deletions), and RMAT-20
# at 10^5 with 10% deletions (session 5 reached only the 4-clique there).
timeout 110 python3 bench/gpu/bench_gpu.py --out $OUT/table --scales 20,22 --sizes 1000,10000 --batches 3 --patterns 4-cycle,diamond,4-clique --ablation "" --no-counters --batch-budget 10 --static-budget 3 --cpu-limit 30 --cpu-when-gpu-under 12 --no-relabel --no-static --time-budget 100 > $OUT/bench-table.log 2>&1
timeout 90 python3 bench/gpu/bench_gpu.py --out $OUT/deletes --scales 20 --sizes 1000,10000 --batches 2 --delete-fraction 0.1 --patterns 4-cycle,diamond,4-clique --ablation "" --no-counters --batch-budget 5 --static-budget 3 --cpu-limit 20 --cpu-when-gpu-under 6 --no-relabel --no-static --time-budget 80 > $OUT/bench-deletes.log 2>&1
timeout 170 python3 bench/gpu/bench_gpu.py --out $OUT/big --scales 20 --sizes 100000 --batches 2 --delete-fraction 0.1 --patterns 4-cycle,diamond,4-clique --ablation "" --no-counters --batch-budget 20 --static-budget 3 --cpu-limit 60 --cpu-when-gpu-under 20 --no-relabel --no-static --time-budget 160 > $OUT/bench-big.log 2>&1
for f in table deletes big; do grep -A30 "^summary" $OUT/bench-$f.log | cut -c1-200; done
