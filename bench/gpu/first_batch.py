"""Where a GPU worker's first batch of a size spends the time its later ones do not (issue 16:
no first-use cost on the hot path).

Runs the warm-up session (`scheduler.warmup.exercise`) on a SchedulerCore over two in-process
CUDA replicas, then batches of the test suite's sizes in its order, `--rounds` times, profiling
every batch with cProfile.  Prints each batch's time and, for every size whose first batch ran
over twice its steady time, the functions whose cumulative time grew most in that first batch;
with CUPY_CACHE_SAVE_CUDA_SOURCE=1 and a fresh CUPY_CACHE_DIR it also lists the CuPy kernels
compiled after the warm-up.

    CUPY_CACHE_DIR=$(mktemp -d) CUPY_CACHE_SAVE_CUDA_SOURCE=1 python bench/gpu/first_batch.py
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from deltamatch.scheduler.core import SchedulerCore, WorkerPool  # noqa: E402
from deltamatch.scheduler.warmup import exercise  # noqa: E402
from deltamatch.workers.replica import GraphReplica  # noqa: E402

SIZES = [100_000, 1, 383, 7, 1000]  # tests/scheduler/test_warmup.py's order


def cached_sources() -> set[str]:
    """The CUDA sources CuPy saved in its kernel cache so far (CUPY_CACHE_SAVE_CUDA_SOURCE=1)."""
    root = Path(os.environ.get("CUPY_CACHE_DIR", Path.home() / ".cupy" / "kernel_cache"))
    return {str(p) for p in root.rglob("*.cu")} if root.exists() else set()


def cumulative(profile: cProfile.Profile) -> dict[str, float]:
    stats = pstats.Stats(profile)
    return {f"{Path(f).name}:{line} {name}": row[3] for (f, line, name), row in stats.stats.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    if args.rounds < 2:
        ap.error("--rounds: at least 2 (the first round is compared with the later ones)")
    core = SchedulerCore(WorkerPool([GraphReplica(args.backend), GraphReplica(args.backend)]))
    t = time.perf_counter()
    exercise(core)
    print(f"warm-up {time.perf_counter() - t:.2f} s", flush=True)
    warm_sources = cached_sources()
    rng = np.random.default_rng(7)
    runs: dict[int, list[tuple[float, dict[str, float]]]] = {n: [] for n in SIZES}
    for rep in range(args.rounds):
        for n in SIZES:
            ids = rng.integers(0, 2 * n + 10, size=(n, 2))
            ids[: min(n // 3, 200), 0] = 0
            ids = ids[ids[:, 0] != ids[:, 1]]
            edges = np.char.add(f"r{rep}-{n}-", ids.astype(str))
            for insert, delete in ((edges, None), (None, edges)):
                profile = cProfile.Profile()
                t = time.perf_counter()
                profile.enable()
                core.apply(insert, delete)
                profile.disable()
                took = time.perf_counter() - t
                runs[n].append((took, cumulative(profile)))
                side = "insert" if delete is None else "delete"
                print(f"round {rep} size {n:>6d} {side}: {took * 1e3:9.1f} ms", flush=True)
    for n, batches in runs.items():
        first, later = batches[0], batches[2:]
        steady = sorted(b[0] for b in later)[len(later) // 2]
        print(f"\nsize {n}: first {first[0] * 1e3:.1f} ms, steady {steady * 1e3:.1f} ms")
        if first[0] <= 2 * steady:
            continue
        base = {k: np.median([b[1].get(k, 0.0) for b in later]) for k in first[1]}
        grown = sorted(first[1], key=lambda k: base[k] - first[1][k])[: args.top]
        for k in grown:
            print(f"  {first[1][k] * 1e3:9.1f} ms (steady {base[k] * 1e3:9.1f})  {k}")
    new = sorted(cached_sources() - warm_sources)
    print(f"\nCuPy kernels compiled after the warm-up: {len(new)}")
    for path in new:
        head = Path(path).read_text(errors="replace")
        names = [line.strip()[:160] for line in head.splitlines() if "__global__" in line]
        print(f"  {Path(path).name}: {names[:3]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
