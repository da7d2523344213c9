"""What the task-cost model needs to know about a batch's changed pairs (computed by the scheduler's intake).

Per changed pair (by rank) and per side: the endpoint degrees and the number of common
neighbours |N(u) ∩ N(v)| in that side's graph (G_old for removals, G_new for additions),
plus the side's vertex count and average degree.  Everything is computed on G_old before
the batch is applied: G_new's values are G_old's corrected (exactly) by the batch's own
pairs.  The common-neighbour count searches the smaller endpoint row's entries in the
larger row, and the G_new correction walks the pair's batch partners, each at most
`COMMON_SAMPLE` evenly spaced entries (scaled up), so a pair costs O(COMMON_SAMPLE log d).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from deltamatch.kernels.sorted_rows import adjacent, contains, lower_bound
from deltamatch.workers.graph import DynamicGraph, NormalizedBatch

COMMON_SAMPLE = 32  # probes per pair for |N(u) ∩ N(v)|: a cost estimate needs no exact count


@dataclass(frozen=True)
class SideFeatures:
    """One side's graph as the cost model sees it; arrays are indexed by batch rank."""

    deg0: np.ndarray  # int32[C]: degree of changed[r, 0]
    deg1: np.ndarray  # int32[C]: degree of changed[r, 1]
    common: np.ndarray  # int32[C]: |N(changed[r, 0]) ∩ N(changed[r, 1])|
    num_vertices: int  # vertices with at least one edge
    avg_degree: float  # 2|E| / num_vertices
    neighbour_degree: float = 0.0  # Σ d² / Σ d: mean degree at the far end of a random edge
    square_sum: int = 0  # Σ d², kept so the next batch can update it


@dataclass(frozen=True)
class PairFeatures:
    """Both sides' features of one batch; `pairs` is the batch's `changed` (deletions first)."""

    pairs: np.ndarray  # int32[C, 2]
    old: SideFeatures
    new: SideFeatures

    def side(self, name: str) -> SideFeatures:
        """'old' or 'new' (the scheduler's side names)."""
        if name not in ("old", "new"):
            raise ValueError(f"side must be 'old' or 'new', got {name!r}")
        return self.old if name == "old" else self.new


@njit(inline="always", cache=True)
def _slot(touched, x):
    i = lower_bound(touched, 0, touched.shape[0], x)
    return i if i < touched.shape[0] and touched[i] == x else -1


@njit(inline="always", cache=True)
def _edge_new(offsets, degree, pool, keys, a, b):
    lo, hi = min(a, b), max(a, b)
    flipped = contains(keys, 0, keys.shape[0], (np.int64(lo) << 32) | np.int64(hi))
    return adjacent(offsets, degree, pool, a, b) != flipped


@njit(cache=True)
def _common(offsets, degree, pool, a, b, keys, touched, ptr, nbr, deleted, sample, out_old, out_new):
    for i in range(a.shape[0]):
        x, y = a[i], b[i]
        s, t = (x, y) if degree[x] <= degree[y] else (y, x)
        d, dt = degree[s], degree[t]
        step = 1 if sample <= 0 or d <= sample else d // sample
        hits, probes, at = 0, 0, 0
        for j in range(0, d, step):
            w = pool[offsets[s] + j]
            at += lower_bound(pool, offsets[t] + at, dt - at, w)  # the row is sorted: search onwards
            if at < dt and pool[offsets[t] + at] == w:
                hits += 1
            probes += 1
        c = hits if step == 1 else int(round(hits * d / probes))
        out_old[i] = c
        # Only a vertex paired with x or y in the batch can enter or leave N(x) ∩ N(y).
        delta = 0
        sx, sy = _slot(touched, x), _slot(touched, y)
        # Batch hubs would make this quadratic: past `sample` partners, probe a stride and scale.
        span = ptr[sx + 1] - ptr[sx] + ptr[sy + 1] - ptr[sy]
        stride = 1 if sample <= 0 or span <= sample else span // sample
        for pass_ in range(2):
            sv, other = (sx, y) if pass_ == 0 else (sy, x)
            for j in range(ptr[sv], ptr[sv + 1], stride):
                w = nbr[j]
                if w in (x, y):
                    continue
                if pass_ == 1 and contains(nbr, ptr[sx], ptr[sx + 1] - ptr[sx], w):
                    continue
                # The pair to w is in the batch: a deletion can only remove w, an insertion add it.
                if deleted[j]:
                    delta -= int(adjacent(offsets, degree, pool, other, w))
                else:
                    delta += int(_edge_new(offsets, degree, pool, keys, other, w))
        out_new[i] = max(c + delta * stride, 0)


def pair_features(graph: DynamicGraph, batch: NormalizedBatch, vertices_old: int,
                  common: bool = True, sample: int = COMMON_SAMPLE,
                  square_sum_old: int | None = None) -> PairFeatures:
    """Features of `batch`'s changed pairs on `graph` (= G_old, batch not yet applied).

    `vertices_old` and `square_sum_old` (Σ d², computed when None) describe G_old and are
    kept incrementally by the caller; G_new's follow from the touched vertices' degrees.  Without `common` the
    common-neighbour counts are left 0 (no plan needs them: the costly part is skipped).
    With `sample` > 0, a smaller row (or a list of batch partners) longer than `sample` is
    probed at about `sample` evenly spaced entries and the count scaled up (0: exact).
    """
    pairs = batch.changed.astype(np.int32)
    n_del = batch.deleted.shape[0]
    degree = graph.degree
    src = np.concatenate([pairs[:, 0], pairs[:, 1]])
    dst = np.concatenate([pairs[:, 1], pairs[:, 0]])
    sign = np.ones(src.shape[0], dtype=np.int64)
    is_del = np.zeros(pairs.shape[0], dtype=np.bool_)
    is_del[:n_del] = True
    sign[np.concatenate([is_del, is_del])] = -1
    order = np.lexsort((dst, src))
    src, dst, sign = src[order], dst[order], sign[order]
    touched, first = np.unique(src, return_index=True)
    ptr = np.append(first, src.shape[0]).astype(np.int64)
    delta = np.add.reduceat(sign, first) if src.shape[0] else np.zeros(0, np.int64)
    d_old_t = degree[touched].astype(np.int64)
    d_new_t = d_old_t + delta
    vertices_new = vertices_old + int(np.count_nonzero((d_old_t == 0) & (d_new_t > 0))) \
        - int(np.count_nonzero((d_old_t > 0) & (d_new_t == 0)))
    if square_sum_old is None:
        square_sum_old = int(np.dot(degree.astype(np.int64), degree.astype(np.int64)))
    square_sum_new = square_sum_old + int((d_new_t * d_new_t - d_old_t * d_old_t).sum())
    lo = np.minimum(pairs[:, 0], pairs[:, 1]).astype(np.int64)
    hi = np.maximum(pairs[:, 0], pairs[:, 1]).astype(np.int64)
    keys = np.sort((lo << 32) | hi)
    common_old = np.zeros(pairs.shape[0], dtype=np.int32)
    common_new = np.zeros(pairs.shape[0], dtype=np.int32)
    if common and pairs.shape[0]:
        _common(graph.offsets, degree, graph.pool, pairs[:, 0].copy(), pairs[:, 1].copy(), keys,
                touched.astype(np.int32), ptr, dst.astype(np.int32), sign < 0, sample, common_old,
                common_new)
    slot0 = np.searchsorted(touched, pairs[:, 0])
    slot1 = np.searchsorted(touched, pairs[:, 1])
    edges_old = graph.num_edges
    edges_new = edges_old + batch.inserted.shape[0] - n_del
    old = SideFeatures(d_old_t[slot0].astype(np.int32), d_old_t[slot1].astype(np.int32), common_old,
                       vertices_old, 2.0 * edges_old / max(vertices_old, 1),
                       square_sum_old / max(2 * edges_old, 1), square_sum_old)
    new = SideFeatures(d_new_t[slot0].astype(np.int32), d_new_t[slot1].astype(np.int32), common_new,
                       vertices_new, 2.0 * edges_new / max(vertices_new, 1),
                       square_sum_new / max(2 * edges_new, 1), square_sum_new)
    return PairFeatures(pairs, old, new)
