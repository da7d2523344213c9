# Sourced at the top of a device call's script (`source scripts/device-env.sh`): installs the
# carried bundle, exports what every device run needs, writes $OUT/device.txt, and keeps CuPy's
# compiled kernels in .cupy-cache.  A cold machine compiles match.cu's builds with NVRTC for
# some minutes before the first result; carry [".devbundle", ".commit", ".cupy-cache"] and unpack
# the $OUT/cupy-cache.tgz a call returns into .cupy-cache (`tar xzf ... -C .cupy-cache`), and the
# next cold machine finds every build of unchanged sources compiled.
bash .devbundle/install.sh >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0
export DM_COMMIT=$(cat .commit 2>/dev/null || echo unknown)
export CUPY_CACHE_DIR=$PWD/.cupy-cache
mkdir -p "$CUPY_CACHE_DIR"
{ date -u; echo "commit $DM_COMMIT"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } \
  > "$OUT/device.txt" 2>&1
trap 'tar czf "$OUT/cupy-cache.tgz" -C "$CUPY_CACHE_DIR" .' EXIT
