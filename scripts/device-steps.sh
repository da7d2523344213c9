# Helpers for a session's device scripts (bench/results/<session>/call*.sh), sourced under
# scripts/device-check.sh's step "script" (which sets $OUT).
step() {  # name, limit (s), command...: its output in $OUT/name.log, ending with its exit status and time
  local name=$1 limit=$2 s; shift 2; s=$(date +%s)
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc $? after $(($(date +%s) - s)) s" >> "$OUT/$name.log"
}
bench() {  # name, limit (s), bench_gpu.py arguments...: one batch per size, no static counts, within the limit
  local name=$1 limit=$2; shift 2
  step "$name" "$limit" python3 bench/gpu/bench_gpu.py --out "$OUT/$name" --no-relabel --no-static \
    --batches 1 --static-budget 5 --batch-budget $((limit - 40)) --time-budget $((limit - 20)) "$@"
  grep "batch\|summary\|  2[02] \|rc \|edges" "$OUT/$name.log" | cut -c1-240; grep -c MISMATCH "$OUT/$name.log"
}
