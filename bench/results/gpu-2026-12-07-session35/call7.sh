#!/usr/bin/env bash
# Session 35, call 7: seed pieces' least degree and piece count swept against the default (off) on
# the same RMAT-20 insert batches (balance_sweep.py), 1,000 and 10^4, 4-clique, diamond, 4-cycle;
# then the house at 1,000.
set -u
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
S="p4096:seed_pieces=32;p2048:seed_pieces=32,piece_min_degree=2048;p1024:seed_pieces=32,piece_min_degree=1024"
S="$S;p512:seed_pieces=32,piece_min_degree=512;p256:seed_pieces=32,piece_min_degree=256"
S="$S;p1024x8:seed_pieces=8,piece_min_degree=1024"
timeout 150 python3 bench/gpu/balance_sweep.py --scale 20 --batch 1000 --batches 3 --repeats 5 \
  --patterns 4-clique,diamond,4-cycle --settings "$S" > $OUT/sweep-1000.log 2>&1
echo "sweep 1000 rc $? at $(elapsed) s"; grep -v "^  batch" $OUT/sweep-1000.log | tail -30
timeout 150 python3 bench/gpu/balance_sweep.py --scale 20 --batch 10000 --batches 2 --repeats 3 \
  --patterns 4-clique,diamond,4-cycle --settings "$S" > $OUT/sweep-10000.log 2>&1
echo "sweep 10000 rc $? at $(elapsed) s"; grep -v "^  batch" $OUT/sweep-10000.log | tail -30
timeout 120 python3 bench/gpu/balance_sweep.py --scale 20 --batch 1000 --batches 2 --repeats 1 \
  --patterns house --settings "p1024:seed_pieces=32,piece_min_degree=1024" > $OUT/sweep-house.log 2>&1
echo "sweep house rc $? at $(elapsed) s"; tail -8 $OUT/sweep-house.log
