#!/usr/bin/env bash
# Session 19, device call 1 (after the "compile" and "tests" steps, the memo's sharing on by
# default): the house on RMAT-18 at 1,000, plan by plan, with the default balance.
step() {  # name, limit (s), command...
  local name=$1 limit=$2 s; shift 2; s=$(date +%s)
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc $? after $(($(date +%s) - s)) s" >> "$OUT/$name.log"
}
step plans18 75 python3 bench/gpu/plan_split.py --scale 18 --size 1000 --pattern house --repeats 1
cut -c1-240 "$OUT/plans18.log"
