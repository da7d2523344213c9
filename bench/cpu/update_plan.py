"""The host's plan of a device graph update (`cuda_backend.plan_update`), and its key sort.

Loads 90% of an RMAT graph's edges as degrees and a packed device layout (no device needed:
the plan reads only the host copy of the row metadata), takes insert batches from the rest,
and times, per batch size, the median over `--reps` batches of: the batch's directed keys
sorted by `pair_order.sort_keys` (radix) and by numba's quicksort (`np.sort`, what
`grouped_updates` used before), `graph.grouped_updates`, and the whole `plan_update`.
Every sort is checked against numpy's.  Not a test: run it by hand,
`python bench/cpu/update_plan.py [--scale 20] [--sizes 1000 10000 100000] [--reps 7]`.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from deltamatch.bench.rmat import rmat_edges
from deltamatch.kernels import row_layout
from deltamatch.kernels.pair_order import sort_keys
from deltamatch.workers.cuda_backend import plan_update
from deltamatch.workers.graph import grouped_updates


@njit(cache=True)
def _quicksort(keys: np.ndarray) -> None:
    keys.sort()


def directed_keys(batch: np.ndarray) -> np.ndarray:
    """grouped_updates' keys of an insert batch (src << 32 | dst << 1 | 1, both directions)."""
    a, b = batch[:, 0].astype(np.int64), batch[:, 1].astype(np.int64)
    return np.concatenate([(a << 32) | (b << 1) | 1, (b << 32) | (a << 1) | 1])


def median_ms(step, inputs: list) -> float:
    step(inputs[0])  # compiled or loaded from numba's cache, outside the timing
    times = []
    for x in inputs:
        start = time.perf_counter()
        step(x)
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e3


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    edges = rmat_edges(args.scale)
    n = 1 << args.scale
    cut = int(0.9 * edges.shape[0])
    degree = np.bincount(edges[:cut].ravel(), minlength=n).astype(np.int32)
    offsets, capacity, _, used, _ = row_layout.packed(degree, row_layout.DEVICE, np)
    print(f"rmat:{args.scale}: {edges.shape[0]} edges, {cut} loaded, max degree {degree.max()}")
    print("batch | sort_keys ms | numba np.sort ms | ratio | grouped_updates ms | plan_update ms")
    none = np.zeros((0, 2), dtype=np.int64)
    for size in args.sizes:
        batches = [edges[cut + i * size : cut + (i + 1) * size] for i in range(args.reps + 1)]
        if batches[-1].shape[0] < size:
            print(f"{size:>6d} | not enough edges left for {args.reps + 1} batches")
            continue
        keys = [directed_keys(b) for b in batches]
        for k in keys[:2]:
            got, want = k.copy(), np.sort(k)
            sort_keys(got)
            if not np.array_equal(got, want):
                raise SystemExit("sort_keys disagrees with numpy's sort")
        radix = median_ms(lambda k: sort_keys(k.copy()), keys)
        quick = median_ms(lambda k: _quicksort(k.copy()), keys)
        grouped = median_ms(lambda b: grouped_updates(none, b, degree), batches)
        plan = median_ms(lambda b: plan_update(none, b, degree, offsets, capacity, used), batches)
        print(f"{size:>6d} | {radix:12.3f} | {quick:16.3f} | {quick / radix:5.1f}x | {grouped:18.3f} | "
              f"{plan:14.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
