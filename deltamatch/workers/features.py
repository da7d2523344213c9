"""What the task-cost model needs to know about a batch's changed pairs.

The scheduler's intake computes them on its host copy (`pair_features`); a GPU worker
computes the same values on its device copy (`device_pair_features`, through its backend).

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
from typing import TYPE_CHECKING

import numba
import numpy as np
from numba import njit, prange

from deltamatch.kernels import cuda_engine
from deltamatch.kernels.pair_order import pair_keys
from deltamatch.kernels.sorted_rows import adjacent, contains, lower_bound
from deltamatch.workers.graph import DynamicGraph, NormalizedBatch, updates_by_row

if TYPE_CHECKING:
    from deltamatch.workers.cuda_backend import GpuGraph

COMMON_SAMPLE = 32  # probes per pair for |N(u) ∩ N(v)|: a cost estimate needs no exact count
# Below this many pairs the common-neighbour counts run on one thread: a parallel launch costs
# more than it saves (a pair costs about 1-7 µs; 10^5 pairs of a skewed graph 0.65 s on one core).
PARALLEL_MIN_PAIRS = 256


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


@njit(inline="always", cache=True)
def _common_pair(i, offsets, degree, pool, a, b, keys, touched, ptr, nbr, deleted, sample, out_old, out_new):
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


@njit(cache=True)
def _common_serial(offsets, degree, pool, a, b, keys, touched, ptr, nbr, deleted, sample, out_old, out_new):
    for i in range(a.shape[0]):
        _common_pair(i, offsets, degree, pool, a, b, keys, touched, ptr, nbr, deleted, sample,
                     out_old, out_new)


@njit(parallel=True, cache=True)
def _common_parallel(offsets, degree, pool, a, b, keys, touched, ptr, nbr, deleted, sample, out_old, out_new):
    for i in prange(a.shape[0]):
        _common_pair(i, offsets, degree, pool, a, b, keys, touched, ptr, nbr, deleted, sample,
                     out_old, out_new)


@dataclass(frozen=True)
class _Changes:
    """A batch's changed pairs grouped per touched vertex (host arrays, O(batch) to build)."""

    pairs: np.ndarray  # int32[C, 2]: the batch's `changed`
    touched: np.ndarray  # int32[T]: the vertices of changed pairs, sorted
    ptr: np.ndarray  # int64[T + 1]: touched[s]'s partners are partner[ptr[s] : ptr[s + 1]]
    partner: np.ndarray  # int32[2C]: sorted per touched vertex
    deleted: np.ndarray  # bool[2C]: the directed pair is a deletion
    delta: np.ndarray  # int64[T]: the batch's change of touched[s]'s degree
    keys: np.ndarray  # int64[C]: the pairs as (min << 32) | max, sorted
    num_inserted: int
    num_deleted: int


def _changes(batch: NormalizedBatch, degree: np.ndarray) -> _Changes:
    """The batch's changes as a graph of these degrees (G_old) applies them: the features group
    the changed pairs by vertex with the grouping that graph's update uses (`updates_by_row`)."""
    pairs = batch.changed.astype(np.int32)
    n_del = batch.deleted.shape[0]
    rows, upd_ptr, upd_nbr, upd_inserted, new_degree, _ = updates_by_row(batch, degree)
    keys = pair_keys(np.minimum(pairs[:, 0], pairs[:, 1]), np.maximum(pairs[:, 0], pairs[:, 1]))
    return _Changes(pairs, rows.astype(np.int32), upd_ptr, upd_nbr, ~upd_inserted,
                    new_degree - degree[rows], np.sort(keys), batch.inserted.shape[0], n_del)


def _assemble(ch: _Changes, d_old_t: np.ndarray, common_old: np.ndarray, common_new: np.ndarray,
              vertices_old: int, square_sum_old: int, edges_old: int) -> PairFeatures:
    """PairFeatures from the graph's values: the touched vertices' G_old degrees, the common
    counts, and G_old's totals."""
    d_old_t = d_old_t.astype(np.int64)
    d_new_t = d_old_t + ch.delta
    vertices_new = vertices_old + int(np.count_nonzero((d_old_t == 0) & (d_new_t > 0))) \
        - int(np.count_nonzero((d_old_t > 0) & (d_new_t == 0)))
    square_sum_new = square_sum_old + int((d_new_t * d_new_t - d_old_t * d_old_t).sum())
    slot0 = np.searchsorted(ch.touched, ch.pairs[:, 0])
    slot1 = np.searchsorted(ch.touched, ch.pairs[:, 1])
    edges_new = edges_old + ch.num_inserted - ch.num_deleted
    old = SideFeatures(d_old_t[slot0].astype(np.int32), d_old_t[slot1].astype(np.int32), common_old,
                       vertices_old, 2.0 * edges_old / max(vertices_old, 1),
                       square_sum_old / max(2 * edges_old, 1), square_sum_old)
    new = SideFeatures(d_new_t[slot0].astype(np.int32), d_new_t[slot1].astype(np.int32), common_new,
                       vertices_new, 2.0 * edges_new / max(vertices_new, 1),
                       square_sum_new / max(2 * edges_new, 1), square_sum_new)
    return PairFeatures(ch.pairs, old, new)


def pair_features(graph: DynamicGraph, batch: NormalizedBatch, vertices_old: int,
                  common: bool = True, sample: int = COMMON_SAMPLE,
                  square_sum_old: int | None = None) -> PairFeatures:
    """Features of `batch`'s changed pairs on `graph` (= G_old, batch not yet applied).

    `vertices_old` and `square_sum_old` (Σ d², computed when None) describe G_old and are
    kept incrementally by the caller; G_new's follow from the touched vertices' degrees.  Without `common` the
    common-neighbour counts are left 0 (no plan needs them: the costly part is skipped).
    With `sample` > 0, a smaller row (or a list of batch partners) longer than `sample` is
    probed at about `sample` evenly spaced entries and the count scaled up (0: exact).
    This is the reference: `device_pair_features` gives the same values from a `GpuGraph`.
    """
    degree = graph.degree
    ch = _changes(batch, degree)
    if square_sum_old is None:
        square_sum_old = int(np.dot(degree.astype(np.int64), degree.astype(np.int64)))
    common_old = np.zeros(ch.pairs.shape[0], dtype=np.int32)
    common_new = np.zeros(ch.pairs.shape[0], dtype=np.int32)
    if common and ch.pairs.shape[0]:
        serial = ch.pairs.shape[0] < PARALLEL_MIN_PAIRS or numba.get_num_threads() == 1
        (_common_serial if serial else _common_parallel)(
            graph.offsets, degree, graph.pool, ch.pairs[:, 0].copy(), ch.pairs[:, 1].copy(), ch.keys,
            ch.touched, ch.ptr, ch.partner, ch.deleted, sample, common_old, common_new)
    return _assemble(ch, degree[ch.touched], common_old, common_new, vertices_old, square_sum_old,
                     graph.num_edges)


def device_pair_features(graph: GpuGraph, batch: NormalizedBatch, vertices_old: int,
                         common: bool = True, sample: int = COMMON_SAMPLE,
                         square_sum_old: int | None = None) -> PairFeatures:
    """`pair_features` with the graph on the device: the same values, the common neighbours
    counted on the device rows (`graph.cu`'s `pair_common`), the degrees read from the graph's
    host copy of them; the batch's own arrays are prepared on the host."""
    cp = cuda_engine.cupy()
    graph.ensure_vertices(int(batch.changed.max(initial=-1)) + 1)  # a batch's new vertices: empty rows
    degree = graph.host_degree[: graph.n]  # the device degrees' host copy
    ch = _changes(batch, degree)
    if square_sum_old is None:
        d64 = degree.astype(np.int64)
        square_sum_old = int((d64 * d64).sum())
    d_old_t = degree[ch.touched]
    common_old = np.zeros(ch.pairs.shape[0], dtype=np.int32)
    common_new = np.zeros(ch.pairs.shape[0], dtype=np.int32)
    n_pairs, n_touched = ch.pairs.shape[0], ch.touched.shape[0]
    if common and n_pairs:
        a, b, touched, partner = cuda_engine.upload(ch.pairs[:, 0], ch.pairs[:, 1], ch.touched, ch.partner)
        keys, ptr = cuda_engine.upload(ch.keys, ch.ptr)
        out = cp.empty(2 * n_pairs, dtype=cp.int32)
        threads = 128
        cuda_engine.kernel("graph.cu", "pair_common")(
            (-(-n_pairs // threads),), (threads,),
            (graph.offsets, graph.degree, graph.pool, a, b, np.int32(n_pairs), keys, touched,
             np.int32(n_touched), ptr, partner, cp.asarray(ch.deleted), np.int32(sample),
             out[:n_pairs], out[n_pairs:]))
        both = out.get()
        common_old, common_new = both[:n_pairs], both[n_pairs:]
    return _assemble(ch, d_old_t, common_old, common_new, vertices_old, square_sum_old, graph.num_edges)
