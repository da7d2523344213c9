"""The deterministic RMAT generator every benchmark of this project shares.

n = 2^scale vertices, m = edge_factor * n directed pairs from
`numpy.random.default_rng(seed)`: at level i = 0 .. scale-1 one float32 draw r per pair
sets bit (scale-1-i) of the source where r >= a+b and of the destination where
a <= r < a+b or r >= a+b+c (thresholds as float32).  No noise, no permutation; then
self-loops are dropped, duplicates merged and the pairs symmetrized.  Scale 20 gives
1,048,576 vertices, 15,703,162 undirected edges, max degree 64,831 (NOTES.md).
"""

from __future__ import annotations

import numpy as np


def rmat_edges(scale: int, edge_factor: int = 16, seed: int = 1,
               a: float = 0.57, b: float = 0.19, c: float = 0.19, *, gpu: bool = False) -> np.ndarray:
    """The undirected RMAT graph as (m, 2) int64 pairs u < v, unique, in order of first generation.

    With `gpu` the bit work and the de-duplication run on the CUDA device (CuPy, imported only
    then); the draws stay numpy's, so the edges are the same, in the same order.
    """
    if not 1 <= scale <= 31:
        raise ValueError(f"scale must be in 1..31, got {scale}")
    if edge_factor < 1:
        raise ValueError(f"edge_factor must be positive, got {edge_factor}")
    if not (a >= 0 and b >= 0 and c >= 0 and a + b + c <= 1):
        raise ValueError(f"RMAT probabilities must be non-negative with a+b+c <= 1, got {a}, {b}, {c}")
    if gpu:
        import cupy as xp
    else:
        xp = np
    m = edge_factor << scale
    rng = np.random.default_rng(seed=seed)
    t_a = np.float32(a)
    t_ab = np.float32(a) + np.float32(b)
    t_abc = t_ab + np.float32(c)
    src = xp.zeros(m, dtype=xp.int64)
    dst = xp.zeros(m, dtype=xp.int64)
    for i in range(scale):
        r = xp.asarray(rng.random(m, dtype=np.float32))
        bit = 1 << (scale - 1 - i)
        high = r >= t_ab
        src |= high.astype(xp.int64) * bit
        dst |= (((r >= t_a) & ~high) | (r >= t_abc)).astype(xp.int64) * bit
        del r, high
    keep = src != dst
    lo = xp.minimum(src[keep], dst[keep])
    hi = xp.maximum(src[keep], dst[keep])
    del src, dst, keep
    key = (lo << 32) | hi
    order = xp.argsort(key, kind="stable")
    ordered = key[order]
    head = xp.ones(ordered.shape[0], dtype=xp.bool_)
    head[1:] = ordered[1:] != ordered[:-1]
    first = xp.sort(order[head])  # each pair's first generation, in generation order
    edges = xp.stack([lo[first], hi[first]], axis=1)
    return edges.get() if gpu else edges


def fingerprint(edges: np.ndarray, scale: int) -> tuple[int, int, int]:
    """(vertices 2^scale, undirected edges, max degree) as NOTES.md lists them."""
    degree = np.bincount(edges.ravel(), minlength=1 << scale)
    return 1 << scale, int(edges.shape[0]), int(degree.max(initial=0))
