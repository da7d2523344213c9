"""Sorting pairs of vertex ids (int, 0 <= id < 2**31) with numpy, fast.

A pair (a, b) is sorted as the one int64 key a << 32 | b: numpy's argsort of one int64 array
is several times faster than `lexsort` over two columns, and sorting then dropping repeats is
far faster than `np.unique` without `return_*` (numpy 2.4 hashes: 3.7 s against 0.03 s for
3.8M keys).
"""

from __future__ import annotations

import numpy as np


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
