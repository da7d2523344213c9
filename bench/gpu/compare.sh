# Functions a device call's script sources (scripts/device-check.sh, step "script": $L, `elapsed`) to
# compare builds of bench_gpu.py's balances on the same machine, one after another.

# Nsight Compute's figures of a match launch: time, grid, registers, warps active, lanes per warp
# instruction, warp instructions.
NCU_MATCH_METRICS=gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum

# ncu_launches BALANCE...: every match launch of one RMAT-20 insert batch of 1,000 (4-clique, diamond,
# 4-cycle; bench/gpu/ncu_batch.py) under each balance, into $L/ncu-1000-BALANCE.log, the figures
# printed.
ncu_launches() {
  local balance
  for balance in "$@"; do
    timeout 70 ncu --clock-control none --kernel-name regex:match_ --metrics "$NCU_MATCH_METRICS" \
      python3 bench/gpu/ncu_batch.py --scale 20 --size 1000 --patterns 4-clique,diamond,4-cycle \
      --balances "$balance" > "$L/ncu-1000-$balance.log" 2>&1
    echo "ncu $balance rc $? at $(elapsed) s"
    grep -E "^(4-|diamond)|match_|duration|registers|warps_active|thread_inst|inst_executed.sum" \
      "$L/ncu-1000-$balance.log" | sed -E 's/ +/ /g' | cut -c1-100
  done
}

# joint_in_turn DEADLINE BALANCE...: new joint batches (4-clique and 4-cycle, RMAT-20, 1,000 with 10%
# deletions, median of 20, each balance in a process of its own: timeline.py --pipeline-fresh) under
# each balance in the order given (name one twice to read it twice), each while 25 s remain before
# DEADLINE (the script's seconds), appended to $L/timeline-joint-BALANCE.log.
joint_in_turn() {
  local deadline=$1 balance
  shift
  for balance in "$@"; do
    [ "$(elapsed)" -lt $((deadline - 25)) ] || { echo "timeline $balance: no time left"; continue; }
    timeout 25 python3 bench/gpu/timeline.py --scale 20 --batch 1000 --batches 3 --delete-fraction 0.1 \
      --joint --patterns 4-clique,4-cycle --ab-reps 3 --pipeline 20 --pipeline-fresh \
      --pipeline-balances "$balance" >> "$L/timeline-joint-$balance.log" 2>&1
    echo "timeline $balance rc $? at $(elapsed) s"
    grep -A5 "^pipeline" "$L/timeline-joint-$balance.log" | tail -6
  done
}
