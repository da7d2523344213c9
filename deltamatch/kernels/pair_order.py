"""Sorting pairs of vertex ids (int, 0 <= id < 2**31) with numpy and numba, fast.

A pair (a, b) is sorted as the one int64 key a << 32 | b: numpy's argsort of one int64 array
is several times faster than `lexsort` over two columns, and sorting then dropping repeats is
far faster than `np.unique` without `return_*` (numpy 2.4 hashes: 3.7 s against 0.03 s for
3.8M keys).  Inside numba, `sort_keys` sorts such keys by their digits.
"""

from __future__ import annotations

import numpy as np
from numba import njit

RADIX_BITS = 11  # a digit of `sort_keys`: 2,048 counters, 5 passes over keys of 2^21-vertex graphs


@njit(cache=True)
def sort_keys(keys: np.ndarray) -> None:
    """Sorts non-negative int64 `keys` in place: a least-significant-digit radix sort, one pass
    per RADIX_BITS up to the largest key's top bit.  Against numba's quicksort (`np.sort`) on
    the directed keys of RMAT-20 insert batches (bench/cpu/update_plan.py, this project's
    2-core machine): 2.5x faster at 2,000 keys (a batch of 1,000), 5.8x at 200,000."""
    n = keys.shape[0]
    top = 0
    for i in range(n):
        top = max(top, keys[i])
    digits = 1 << RADIX_BITS
    count = np.empty(digits, dtype=np.int64)
    src, dst = keys, np.empty_like(keys)
    passes = 0
    while top >> (passes * RADIX_BITS) > 0:
        shift = passes * RADIX_BITS
        count[:] = 0
        for i in range(n):
            count[(src[i] >> shift) & (digits - 1)] += 1
        at = 0
        for d in range(digits):
            at, count[d] = at + count[d], at
        for i in range(n):
            d = (src[i] >> shift) & (digits - 1)
            dst[count[d]] = src[i]
            count[d] += 1
        src, dst = dst, src
        passes += 1
    if passes % 2:
        keys[:] = src


def pair_keys(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """int64 keys that order pairs (a[i], b[i]) by a, then b."""
    return (a.astype(np.int64) << 32) | b.astype(np.int64)


def sorted_unique(keys: np.ndarray) -> np.ndarray:
    """The distinct values of `keys`, ascending (np.unique's result)."""
    out = np.sort(keys)
    if out.shape[0] < 2:
        return out
    keep = np.empty(out.shape[0], dtype=np.bool_)
    keep[0] = True
    np.not_equal(out[1:], out[:-1], out=keep[1:])
    return out[keep]


def by_source(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(order, sources, starts): the stable order that sorts directed pairs by (src, dst), the
    distinct sources in that order and the index where each one's run begins."""
    order = np.argsort(pair_keys(src, dst), kind="stable")
    ordered = src[order]
    head = np.empty(ordered.shape[0], dtype=np.bool_)
    head[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=head[1:])
    starts = np.flatnonzero(head)
    return order, ordered[starts], starts
