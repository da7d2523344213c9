"""match.cu's builds compiled into CuPy's kernel cache by parallel processes.

NVRTC takes about 35 s for one build of match.cu on the H200 host, one at a time, and the GPU tests
and ablations load a dozen builds: a device call with a new match.cu spent its limit compiling
(sessions 13, 16 and 17).  This compiles, in up to `--jobs` processes, the default build and one
per switch that is a build of its own (`Balance.defines`), each with and without a pair table
(`Balance.builds`) and with and without statistics, so that what runs after it loads them from
CUPY_CACHE_DIR.  Beside them, one more process compiles the CPU engine's numba functions into
numba's cache (98 s cold on the H100 host, session 21: a fresh machine has none, and a GPU test step that
died at its limit before its first test in session 20 was most likely compiling them).

    CUPY_CACHE_DIR=$PWD/.cupy-cache python bench/gpu/compile_builds.py --jobs 12
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import fields, replace
from functools import partial
from pathlib import Path
from typing import get_type_hints

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from deltamatch.kernels import cuda_engine as engine  # noqa: E402

JOBS = max(1, (os.cpu_count() or 2) - 2)


def every_build() -> list[tuple[bool, tuple[str, ...]]]:
    """(stats, defines) of the default Balance and of each build switch flipped (the memo's table
    at one width's keys, each other count of warps an SM), with and without a pair table and
    statistics."""
    hints = get_type_hints(engine.Balance)
    default = engine.Balance()
    variants = [default, replace(default, memo_factor=1)]
    variants += [replace(default, warps_per_sm=w) for w in engine.WARPS_PER_SM if w != default.warps_per_sm]
    for f in fields(engine.Balance):
        if hints[f.name] is bool:
            flipped = replace(default, **{f.name: not getattr(default, f.name)})
            if flipped.defines() != default.defines():
                variants.append(flipped)
    return builds_of(variants)


def balance_builds(names: list[str]) -> list[tuple[bool, tuple[str, ...]]]:
    """(stats, defines) of the named balances of bench_gpu.py, with and without a pair table and
    statistics: a device call that runs only those compiles only them."""
    from bench_gpu import BALANCES  # bench_gpu imports this module

    return builds_of([BALANCES[name] for name in names])


def builds_of(balances: list[engine.Balance]) -> list[tuple[bool, tuple[str, ...]]]:
    """(stats, defines) of every build the balances may launch, each once, with and without
    statistics."""
    builds = dict.fromkeys(defines for balance in balances for defines in balance.builds())
    return [(stats, defines) for defines in builds for stats in (False, True)]


def compile_one(build: tuple[bool, tuple[str, ...]]) -> tuple[tuple[bool, tuple[str, ...]], float]:
    t0 = time.perf_counter()
    for unit in engine.MATCH_UNITS:
        engine.module(unit, build[0], build[1])
    return build, time.perf_counter() - t0


def compile_cpu_engine() -> float:
    """Compiles the CPU engine's numba functions (the benchmark's warm-up on a tiny graph): the
    parity tests and benchmarks diff every GPU count against it.  Returns the seconds it took."""
    from deltamatch.bench.engines import warm_up
    from deltamatch.scheduler.patterns import parse_pattern

    t0 = time.perf_counter()
    warm_up(parse_pattern("house"), ["cpu"])
    return time.perf_counter() - t0


def compile_all(builds: list[tuple[bool, tuple[str, ...]]], jobs: int = JOBS, log=print) -> None:
    """Compiles `builds` ((stats, defines) of match.cu) into CuPy's cache in up to `jobs` spawned
    processes (a forked child cannot use the parent's CUDA context), logging each one's time; the
    caller's own first use then loads them from the cache."""
    with ProcessPoolExecutor(max(1, min(jobs, len(builds))),
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        for (stats, defines), seconds in pool.map(compile_one, builds):
            log(f"  {seconds:6.1f} s  stats {int(stats)}  {' '.join(defines) or '(default)'}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=JOBS)
    ap.add_argument("--balances", default="",
                    help="only these balances' builds (bench_gpu.py's names, comma-separated; default: all)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    engine.warm_up()  # the other modules, and CuPy's own kernels, once before the processes start
    builds = every_build() if not args.balances else balance_builds(args.balances.split(","))
    print(f"{len(builds)} builds of match.cu in {args.jobs} processes, numba beside them", flush=True)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as numba_pool:
        cpu_engine = numba_pool.submit(compile_cpu_engine)
        compile_all(builds, args.jobs, partial(print, flush=True))
        print(f"  {cpu_engine.result():6.1f} s  the CPU engine (numba)", flush=True)
    print(f"done in {time.perf_counter() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
