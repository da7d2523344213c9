#!/usr/bin/env bash
# One device-machine run (issue 4): GPU tests, GPU parity, the service end to end with two
# workers sharing the card, and the GPU benchmark.  Logs and CSVs go to $OUT.
#   device call: carry [".devbundle"] (built here by `make devbundle`), command: make device-check
#   (or bash scripts/device-check.sh)
# Knobs: DEVCHECK_STEPS (default "tests e2e bench"; also "compile", match.cu's builds compiled in
# parallel processes into the carried cache before the steps that load them, and the CPU engine's numba
# functions beside them (bench/gpu/compile_builds.py:
# put it first after a change to match.cu), "static", the static counts against G2Miner,
# "cpu-replay", the CPU replay benchmark on the device host's cores, "multi", workers on Ray scaled
# 1 -> 2 -> 4 with every allocation policy's per-batch balance: one GPU each, or a share of the card
# when there are fewer GPUs; run it alone, it takes the whole call; "latency", the service's per-batch
# latency and overhead share with two workers sharing the card, and the measured routing thresholds:
# bench/gpu/service_latency.py, run it alone too; and "rapidflow", issue 18's CPU engine against
# RapidFlow, one numba thread per run, each pinned to a core of RF_CORES (default "1 2 3 4 5"):
# email-Enron and ca-HepPh x file order and --shuffle 1 with batches of 1,000, four `deltamatch bench`
# runs in parallel, and beside them one run of batches of 1 without the house; graphs from
# $DELTAMATCH_DATA or shared/data), PYTEST_ARGS (extra pytest arguments), BENCH_ARGS (passed to
# bench/gpu/bench_gpu.py), STATIC_ARGS (bench/gpu/static_bench.py), REPLAY_ARGS
# (bench/cpu/replay_bench.py), MULTI_ARGS (python -m deltamatch.bench.multi_gpu; its --time-budget
# keeps it inside MULTI_TIMEOUT), LATENCY_ARGS (bench/gpu/service_latency.py; its --time-budget keeps
# it inside LATENCY_TIMEOUT), RF_ARGS (patterns, engines and --time-limit of the rapidflow step's
# batch-of-1,000 runs), RF1_ARGS (the same for its batch-of-1 run), per-step limits TESTS_TIMEOUT /
# E2E_TIMEOUT / BENCH_TIMEOUT / STATIC_TIMEOUT / REPLAY_TIMEOUT / MULTI_TIMEOUT / LATENCY_TIMEOUT /
# RF_TIMEOUT / COMPILE_TIMEOUT and BENCH_BUDGET (s; defaults keep the whole run under 10 minutes),
# DM_COMMIT (the commit to record; the device copy has no git history).  "latency" reads data/email-Enron.txt.gz:
# carry [".devbundle", "data"].  Step "profile" runs Nsight Compute on one batch with line tables
# (bench/gpu/ncu_batch.py --lineinfo; PROFILE_ARGS its arguments, default the RMAT-20 4-cycle at
# 10^4; NCU_ARGS the sections and launches, default phase 1's launch; PROFILE_TIMEOUT): where the
# warps stall, per SASS instruction.  Step "script" runs the file DEVCHECK_SCRIPT under this environment
# (a session's own measurements, kept beside their logs), with $L, a logs folder that comes back
# packed, and `elapsed`, the script's seconds so far.
# Folders under $OUT come back packed as $OUT/outputs.tgz.
# CuPy's kernel cache is .cupy-cache (ignored): it comes back as $OUT/cupy-cache.tgz.  Copy that to
# .cupy-cache.tgz (ignored) and carry it beside .devbundle (unpacked, the cache and the bundle pass
# the 64 MiB a call carries; packed, 10 MB): it is unpacked into .cupy-cache here, and the next
# machine skips its NVRTC compiles (a cold one spent a whole 140 s call compiling, session 13).
# numba's comes back as $OUT/numba-cache.tgz (5 MB): carried as .numba-cache.tgz, below.
set -uo pipefail
OUT=${OUT:-$PWD/device-check-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0 CUPY_CACHE_DIR=$PWD/.cupy-cache DM_COMMIT=${DM_COMMIT:-$(cat .commit 2>/dev/null)}
mkdir -p "$CUPY_CACHE_DIR"
if [ -f .cupy-cache.tgz ]; then
  tar xzf .cupy-cache.tgz -C "$CUPY_CACHE_DIR"
fi
# A file comes back only under 16 MiB: a cache grown past that (call 3 of session 39: every build
# of a new match_body.cuh beside the carried builds of the old one) comes back as this call's
# compiles alone, those of the sources it ran.
cache_marker=$(mktemp)  # its mtime: the call's start, after the carried cache is unpacked
# numba's cache keeps a callee's old code when only another module changed (docs/CONTRIBUTING.md),
# and a warm machine keeps __pycache__ between calls: dropped whenever the package's Python sources
# differ from the last call's (a commit of docs or scripts keeps it).
numba_marker=deltamatch/__pycache__/devcheck-sources
sources=$(find deltamatch -name '*.py' -print0 | sort -z | xargs -0 cat | sha1sum | cut -d' ' -f1)
if [ "$(cat "$numba_marker" 2>/dev/null)" != "$sources" ]; then
  make -s clean-numba
fi
mkdir -p deltamatch/__pycache__ && echo "$sources" > "$numba_marker"
# The CPU engine's numba cache comes back as $OUT/numba-cache.tgz with the sources' hash inside;
# carried as .numba-cache.tgz (ignored), it is unpacked only when that hash is this call's, so a
# fresh machine skips the 71-79 s a numba compile took on one (session 35: a test step that began
# with it ran out of time).  numba (and Python's .pyc) trust a source file whose mtime and size are
# those recorded, and the machine's copy has mtimes of its own: each file's mtime is set from its
# content's hash, the same on every machine and different wherever the content is.
find deltamatch -name '*.py' -print0 | while IFS= read -r -d '' f; do
  touch -d "@$((16#$(sha1sum "$f" | cut -c1-7)))" "$f"
done
if [ -f .numba-cache.tgz ] && [ "$(tar xzf .numba-cache.tgz -O "$numba_marker" 2>/dev/null)" = "$sources" ]; then
  tar xzf .numba-cache.tgz
fi
# At most 8 files come back from a call, the two caches among them: every folder under $OUT (a
# bench's CSV, plot and meta) travels packed in outputs.tgz beside the logs.
pack() {
  tar czf "$OUT/cupy-cache.tgz" -C "$CUPY_CACHE_DIR" .
  if [ "$(stat -c %s "$OUT/cupy-cache.tgz")" -ge $((16 << 20)) ]; then
    (cd "$CUPY_CACHE_DIR" && find . -type f -newer "$cache_marker" -print | tar czf "$OUT/cupy-cache.tgz" -T -)
    echo "cupy-cache.tgz: over 16 MiB, only this call's compiles packed"
  fi
  find deltamatch \( -name '*.nbi' -o -name '*.nbc' \) -print | tar czf "$OUT/numba-cache.tgz" "$numba_marker" -T -
  local dirs
  dirs=$(cd "$OUT" && find . -mindepth 1 -maxdepth 1 -type d)
  if [ -n "$dirs" ]; then
    # shellcheck disable=SC2086
    (cd "$OUT" && tar czf outputs.tgz $dirs && rm -rf $dirs)
  fi
}
trap pack EXIT
if [ -x .devbundle/install.sh ] || [ -f .devbundle/install.sh ]; then
  bash .devbundle/install.sh && export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD
fi
PY=${PY:-python3}
STEPS=${DEVCHECK_STEPS:-tests e2e bench}
status=0
{ date -u; echo "commit ${DM_COMMIT:-$(git rev-parse HEAD 2>/dev/null)}"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv; nproc; } \
  > "$OUT/device.txt" 2>&1
for step in $STEPS; do
  case $step in
    compile)
      timeout "${COMPILE_TIMEOUT:-240}" $PY bench/gpu/compile_builds.py 2>&1 | tee "$OUT/compile.log" || status=1 ;;
    tests)
      timeout "${TESTS_TIMEOUT:-240}" $PY -m pytest -q -m gpu -p no:cacheprovider --tb=short ${PYTEST_ARGS:-} tests/kernels/test_cuda_engine.py tests/bench/test_rmat.py 2>&1 \
        | tee "$OUT/gpu-tests.log" || status=1 ;;
    e2e)
      timeout "${E2E_TIMEOUT:-180}" $PY bench/gpu/service_e2e.py 2>&1 | tee "$OUT/service-e2e.log" || status=1 ;;
    bench)
      # shellcheck disable=SC2086
      timeout "${BENCH_TIMEOUT:-330}" $PY bench/gpu/bench_gpu.py --out "$OUT" --time-budget "${BENCH_BUDGET:-270}" \
        ${BENCH_ARGS:---scales 20,22 --batches 2 --static-budget 5 --batch-budget 5 --cpu-when-gpu-under 0.5 --cpu-limit 5 --ablation none,heavy,split} 2>&1 | tee "$OUT/gpu-bench.log" || status=1 ;;
    static)
      # shellcheck disable=SC2086
      timeout "${STATIC_TIMEOUT:-300}" $PY bench/gpu/static_bench.py --out "$OUT" ${STATIC_ARGS:-} 2>&1 \
        | tee "$OUT/gpu-static.log" || status=1 ;;
    cpu-replay)
      # shellcheck disable=SC2086
      timeout "${REPLAY_TIMEOUT:-540}" $PY bench/cpu/replay_bench.py --out "$OUT" \
        ${REPLAY_ARGS:---batches 3} 2>&1 | tee -a "$OUT/cpu-replay.log" || status=1 ;;
    multi)
      # shellcheck disable=SC2086
      timeout "${MULTI_TIMEOUT:-530}" $PY -m deltamatch.bench.multi_gpu --out "$OUT" \
        ${MULTI_ARGS:---graphs rmat:22 rmat:23 --sizes 10000 100000 --workers 1 2 4 --time-budget 450} 2>&1 \
        | tee "$OUT/multi-gpu.log" || status=1 ;;
    latency)
      # shellcheck disable=SC2086
      timeout "${LATENCY_TIMEOUT:-360}" $PY bench/gpu/service_latency.py --out "$OUT" \
        ${LATENCY_ARGS:---time-budget 300} 2>&1 | tee "$OUT/service-latency.log" || status=1 ;;
    rapidflow)
      # The registration's static count is outside --time-limit (the house's: about a minute per
      # engine), hence the low default limit: 15 engine runs a process within RF_TIMEOUT.  A first
      # small run fills numba's cache, so the five runs do not each compile the kernels.
      NUMBA_NUM_THREADS=1 timeout "${RF_TIMEOUT:-300}" $PY -m deltamatch.cli bench --graphs rmat:8 \
        --patterns triangle house --batch 100 --max-batches 1 --engines cpu-1 --no-plots --no-progress \
        --out "$OUT/rf-warm-up" > "$OUT/rapidflow-warm-up.log" 2>&1 || status=1
      read -r -a rf_cores <<< "${RF_CORES:-1 2 3 4 5}"
      rf_pids=()
      rf_run() {  # log name, bench arguments...; the next core of RF_CORES
        local log=$1 core=${rf_cores[${#rf_pids[@]}]}; shift
        NUMBA_NUM_THREADS=1 timeout "${RF_TIMEOUT:-300}" taskset -c "$core" $PY -m deltamatch.cli bench \
          --no-plots --no-progress --out "$OUT" --tag "rf-$log" "$@" > "$OUT/rapidflow-$log.log" 2>&1 &
        rf_pids+=($!)
      }
      for graph in email-Enron ca-HepPh; do
        for order in file shuffle; do
          # shellcheck disable=SC2046,SC2086
          rf_run "$graph-$order-1000" --graphs $graph $([ $order = shuffle ] && echo --shuffle 1) --batch 1000 \
            ${RF_ARGS:---patterns triangle 4-cycle diamond 4-clique house --engines cpu-1 cpu-1-nomemo cpu-1-norev --time-limit 8}
        done
      done
      # shellcheck disable=SC2086
      rf_run batch-1 --graphs email-Enron ca-HepPh --batch 1 \
        ${RF1_ARGS:---patterns triangle 4-cycle diamond 4-clique --engines cpu-1 --time-limit 20}
      for pid in "${rf_pids[@]}"; do wait "$pid" || status=1; done
      tail -n 4 "$OUT"/rapidflow-*.log ;;
    profile)
      # Nsight Compute on one batch's match launches, the builds with line tables: the report and,
      # from it, the sampled warp stalls and idle lanes per SASS instruction (profile/sass.csv, the
      # most stalled and the most idle in profile/stall-top.txt; the CUDA-source page came out empty
      # for these reports, session 27).
      mkdir -p "$OUT/profile"
      # shellcheck disable=SC2086
      timeout "${PROFILE_TIMEOUT:-240}" ncu --clock-control none --kernel-name regex:match_ --import-source yes \
        ${NCU_ARGS:---launch-skip 1 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section SourceCounters} \
        -f -o "$OUT/profile/match" $PY bench/gpu/ncu_batch.py --lineinfo \
        ${PROFILE_ARGS:---scale 20 --size 10000 --patterns 4-cycle --balances all} 2>&1 | tee "$OUT/profile.log" || status=1
      ncu --import "$OUT/profile/match.ncu-rep" --page details > "$OUT/profile/details.txt" 2>&1
      ncu --import "$OUT/profile/match.ncu-rep" --page source --csv --print-source sass \
        > "$OUT/profile/sass.csv" 2>&1 || echo "ncu could not print the source page: read match.ncu-rep"
      # The same page with the CUDA lines each SASS run comes from, where the line tables reach.
      ncu --import "$OUT/profile/match.ncu-rep" --page source --csv --print-source cuda,sass \
        > "$OUT/profile/cuda-sass.csv" 2>&1 || echo "ncu could not print the CUDA lines beside the SASS"
      $PY bench/gpu/stall_top.py "$OUT/profile/sass.csv" | tee "$OUT/profile/stall-top.txt"
      $PY bench/gpu/stall_top.py "$OUT/profile/cuda-sass.csv" --cuda-lines --top 30 \
        | tee "$OUT/profile/lanes-by-line.txt" ;;
    script)
      # The script gets $L, a folder under $OUT for its logs (packed into outputs.tgz: loose files
      # past a count do not come back), and `elapsed`, the seconds since it started.
      export L="$OUT/logs" DEVCHECK_T0
      DEVCHECK_T0=$(date +%s)
      mkdir -p "$L"
      elapsed() { echo $(( $(date +%s) - DEVCHECK_T0 )); }
      export -f elapsed
      bash "${DEVCHECK_SCRIPT:?the file to run}" || status=1 ;;
    *) echo "unknown step $step" >&2; status=1 ;;
  esac
done
exit $status
