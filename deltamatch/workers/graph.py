"""The dynamic data graph on the host: sorted adjacency rows with slack.

Row v lives at pool[offsets[v] : offsets[v] + degree[v]] inside a block of
capacity[v] slots.  A batch rewrites only the rows it touches; a row that outgrows
its block moves to a fresh block at the end of the pool, and the pool is compacted
when more than half of it is dead: the layout and its policy are `kernels/row_layout`'s,
shared with the device copy (`GpuGraph`).  External vertex ids (any value below 2^31)
are mapped to dense internal ids in first-seen order, so the vertex range grows on demand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numba
import numpy as np
from numba import njit, prange

from deltamatch.kernels import row_layout
from deltamatch.kernels.pair_order import by_source, pair_keys, sorted_unique
from deltamatch.kernels.plan_table import BatchView, GraphView
from deltamatch.kernels.sorted_rows import adjacent

MAX_VERTEX_ID = 2**31 - 1


class GraphInputError(ValueError):
    """Edge input that cannot be applied: bad shape, negative or oversized ids, self-loops."""


def as_pairs(edges, what: str = "edges") -> np.ndarray:
    """Validate an edge list in one numpy pass: an int64 (n, 2) array of ids in range, no self-loops."""
    try:
        arr = np.asarray(edges if edges is not None else [], dtype=np.int64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise GraphInputError(f"{what}: every edge must be a pair of integers") from exc
    if arr.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise GraphInputError(f"{what}: every edge must be a pair [u, v]")
    bad = np.flatnonzero((arr < 0).any(axis=1) | (arr > MAX_VERTEX_ID).any(axis=1))
    if bad.size:
        u, v = arr[bad[0]]
        raise GraphInputError(
            f"{what}[{bad[0]}]: vertex ids must be in 0..{MAX_VERTEX_ID}, got [{u}, {v}]"
        )
    loops = np.flatnonzero(arr[:, 0] == arr[:, 1])
    if loops.size:
        raise GraphInputError(f"{what}[{loops[0]}]: self-loop [{arr[loops[0], 0]}, {arr[loops[0], 1]}]")
    return arr


def unique_pairs(pairs: np.ndarray) -> np.ndarray:
    """Unordered pairs as (min, max), duplicates merged, sorted."""
    if pairs.shape[0] == 0:
        return pairs.reshape(0, 2)
    lo = np.minimum(pairs[:, 0], pairs[:, 1])
    hi = np.maximum(pairs[:, 0], pairs[:, 1])
    keys = sorted_unique(pair_keys(lo, hi))
    return np.stack([keys >> 32, keys & 0xFFFFFFFF], axis=1)


class VertexMap:
    """External ids <-> dense internal ids, assigned in first-seen order.

    Lookups search a sorted index of the external ids.  New ids go to a small sorted side index
    that is merged into the main one once it holds a sixteenth of it, and `external` grows by
    doubling, so interning a batch's new vertices costs O(new · log) amortized, not O(vertices)
    (np.insert into a 4M-entry index took 14 ms per batch)."""

    MERGE_SHARE = 16  # merge the side index when it exceeds 1/MERGE_SHARE of the main one

    def __init__(self, external: np.ndarray | None = None):
        ext = np.zeros(0, dtype=np.int64) if external is None else np.asarray(external, dtype=np.int64)
        self._buffer = ext.copy()
        self._n = ext.shape[0]
        self._by_key = np.argsort(ext, kind="stable")
        self._keys = ext[self._by_key]
        self._side_keys = np.zeros(0, dtype=np.int64)
        self._side_ids = np.zeros(0, dtype=np.int64)

    def __len__(self) -> int:
        return self._n

    @property
    def external(self) -> np.ndarray:
        """External id of every internal id (a view: copy it to keep it)."""
        return self._buffer[: self._n]

    @staticmethod
    def _search(keys: np.ndarray, values: np.ndarray, ids: np.ndarray) -> np.ndarray:
        if keys.shape[0] == 0:
            return np.full(ids.shape, -1, dtype=np.int64)
        pos = np.minimum(np.searchsorted(keys, ids), keys.shape[0] - 1)
        return np.where(keys[pos] == ids, values[pos], -1).astype(np.int64)

    def lookup(self, ids: np.ndarray) -> np.ndarray:
        """Internal ids of `ids` (int64), -1 where unknown."""
        ids = np.asarray(ids, dtype=np.int64)
        internal = self._search(self._keys, self._by_key, ids)
        if self._side_keys.shape[0]:
            missing = internal < 0
            internal[missing] = self._search(self._side_keys, self._side_ids, ids[missing])
        return internal

    def intern(self, ids: np.ndarray) -> np.ndarray:
        """Internal ids of `ids`, assigning new ones (in order of first appearance) to unknown ids."""
        ids = np.asarray(ids, dtype=np.int64)
        internal = self.lookup(ids)
        unknown = internal < 0
        if unknown.any():
            new, first = np.unique(ids[unknown], return_index=True)
            fresh = np.empty(new.shape[0], dtype=np.int64)
            fresh[np.argsort(first, kind="stable")] = np.arange(self._n, self._n + new.shape[0])
            self._append(new, fresh)
            internal = self.lookup(ids)
        return internal

    def _append(self, new: np.ndarray, fresh: np.ndarray) -> None:
        """Record external ids `new` (sorted, unknown) as internal ids `fresh` (the next ones)."""
        end = self._n + new.shape[0]
        if end > self._buffer.shape[0]:
            grown = np.empty(max(end, 2 * self._buffer.shape[0]), dtype=np.int64)
            grown[: self._n] = self._buffer[: self._n]
            self._buffer = grown
        self._buffer[fresh] = new
        self._n = end
        at = np.searchsorted(self._side_keys, new)
        self._side_keys = np.insert(self._side_keys, at, new)
        self._side_ids = np.insert(self._side_ids, at, fresh)
        if self._side_keys.shape[0] * self.MERGE_SHARE > self._keys.shape[0]:
            at = np.searchsorted(self._keys, self._side_keys)
            self._keys = np.insert(self._keys, at, self._side_keys)
            self._by_key = np.insert(self._by_key, at, self._side_ids)
            self._side_keys = self._side_keys[:0]
            self._side_ids = self._side_ids[:0]

    def append(self, ids: np.ndarray) -> None:
        """Give the unknown external `ids` the next internal ids, in order."""
        base = len(self)
        if (self.intern(ids) != np.arange(base, base + ids.shape[0])).any():
            raise ValueError("vertices to append must be distinct and unknown")

    def tentative(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(internal ids of `ids`, the unknown ids in order of first appearance): what
        `intern` would assign, without assigning it."""
        internal = self.lookup(ids)
        unknown = internal < 0
        if not unknown.any():
            return internal, np.zeros(0, dtype=np.int64)
        new, first, inverse = np.unique(ids[unknown], return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty(new.shape[0], dtype=np.int64)
        rank[order] = np.arange(new.shape[0])
        internal[unknown] = len(self) + rank[inverse.ravel()]
        return internal, new[order]


@dataclass(frozen=True)
class NormalizedBatch:
    """A batch reduced to its effect: D ⊆ E_old, I ∩ E_old = ∅, internal ids, (u, v) with u < v
    in external order.  `changed` lists D then I: a pair's index there is its rank.

    The batch was normalized against a graph of `vertex_base` known vertices; the vertices
    it adds (`new_vertices`, external ids) take internal ids vertex_base, vertex_base + 1, …
    in that order, so every graph that applies it assigns the same ids."""

    deleted: np.ndarray  # int32[d, 2]
    inserted: np.ndarray  # int32[i, 2]
    ignored: int
    vertex_base: int = 0
    new_vertices: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def changed(self) -> np.ndarray:
        return np.concatenate([self.deleted, self.inserted]).reshape(-1, 2)


def normalize_batch(vertices: VertexMap, has_edges: Callable[[np.ndarray, np.ndarray], np.ndarray],
                    insert, delete) -> NormalizedBatch:
    """Reduce a raw batch to its effect on the graph whose names are `vertices` and whose
    edge test (internal id pairs -> bool array) is `has_edges`; validates, changes nothing.

    A pair in both lists ends present; duplicates and no-ops are counted as ignored.
    """
    ins = as_pairs(insert, "insert")
    dele = as_pairs(delete, "delete")
    raw = ins.shape[0] + dele.shape[0]
    ins_u = unique_pairs(ins)
    del_u = unique_pairs(dele)
    if ins_u.shape[0] and del_u.shape[0]:
        keys_i = (ins_u[:, 0] << 32) | ins_u[:, 1]
        keys_d = (del_u[:, 0] << 32) | del_u[:, 1]
        del_u = del_u[~np.isin(keys_d, keys_i)]
    d_int = vertices.lookup(del_u.ravel()).reshape(-1, 2)
    d_int = d_int[(d_int >= 0).all(axis=1)]
    if d_int.shape[0]:
        d_int = d_int[has_edges(d_int[:, 0], d_int[:, 1])]
    base = len(vertices)
    i_int, new_vertices = vertices.tentative(ins_u.ravel())
    i_int = i_int.reshape(-1, 2)
    known = (i_int < base).all(axis=1)  # a pair with a new vertex is never an edge yet
    present = np.zeros(i_int.shape[0], dtype=np.bool_)
    if known.any():
        present[known] = has_edges(i_int[known, 0], i_int[known, 1])
    d_int = d_int.astype(np.int32)
    i_int = i_int[~present].astype(np.int32)
    return NormalizedBatch(d_int, i_int, raw - d_int.shape[0] - i_int.shape[0], base, new_vertices)


@njit(parallel=True, cache=True)
def _has_edges_parallel(offsets, degree, pool, us, vs):
    out = np.zeros(us.shape[0], dtype=np.bool_)
    for i in prange(us.shape[0]):
        out[i] = adjacent(offsets, degree, pool, us[i], vs[i])
    return out


@njit(cache=True)
def _has_edges_serial(offsets, degree, pool, us, vs):
    out = np.zeros(us.shape[0], dtype=np.bool_)
    for i in range(us.shape[0]):
        out[i] = adjacent(offsets, degree, pool, us[i], vs[i])
    return out


@njit(cache=True)
def _rewrite_chunk(c, n_chunks, offsets, degree, pool, rows, new_offsets, upd_ptr, upd_nbr, width):
    """Rows c, c + n_chunks, ...: merge each with its sorted updates (a deletion of a present
    neighbour or an insertion of an absent one) into its (possibly new) block."""
    tmp = np.empty(width, dtype=np.int32)
    for r in range(c, rows.shape[0], n_chunks):
        v = rows[r]
        start, d = offsets[v], degree[v]
        i, j, n = 0, upd_ptr[r], 0
        end = upd_ptr[r + 1]
        while i < d or j < end:
            if j == end or (i < d and pool[start + i] < upd_nbr[j]):
                tmp[n] = pool[start + i]
                n += 1
                i += 1
            elif i < d and pool[start + i] == upd_nbr[j]:
                i += 1
                j += 1
            else:
                tmp[n] = upd_nbr[j]
                n += 1
                j += 1
        dst = new_offsets[r]
        for x in range(n):
            pool[dst + x] = tmp[x]
        offsets[v] = dst
        degree[v] = n


@njit(parallel=True, cache=True)
def _rewrite_rows_parallel(offsets, degree, pool, rows, new_offsets, upd_ptr, upd_nbr, width, n_chunks):
    for c in prange(n_chunks):
        _rewrite_chunk(c, n_chunks, offsets, degree, pool, rows, new_offsets, upd_ptr, upd_nbr, width)


# Below this many pairs or rows, a parallel launch costs more than it saves.
_PARALLEL_MIN = 4096


def _has_edges(offsets, degree, pool, us, vs) -> np.ndarray:
    if us.shape[0] < _PARALLEL_MIN or numba.get_num_threads() == 1:
        return _has_edges_serial(offsets, degree, pool, us, vs)
    return _has_edges_parallel(offsets, degree, pool, us, vs)


def _rewrite_rows(offsets, degree, pool, rows, new_offsets, upd_ptr, upd_nbr, width) -> None:
    """Rewrite the touched rows; one scratch row per chunk of rows, not per row."""
    threads = numba.get_num_threads()
    if rows.shape[0] < _PARALLEL_MIN or threads == 1:
        _rewrite_chunk(0, 1, offsets, degree, pool, rows, new_offsets, upd_ptr, upd_nbr, width)
    else:
        _rewrite_rows_parallel(offsets, degree, pool, rows, new_offsets, upd_ptr, upd_nbr, width,
                               min(rows.shape[0], 8 * threads))


def admit_vertices(graph, batch: NormalizedBatch) -> None:
    """The first step of applying `batch` to `graph` (a DynamicGraph or anything with its
    `vertices` and `add_vertices`): check that it was normalized against this many vertices,
    then intern the vertices it adds."""
    if batch.vertex_base != len(graph.vertices):
        raise ValueError(f"batch normalized against {batch.vertex_base} vertices, "
                         f"graph has {len(graph.vertices)}")
    if batch.new_vertices.shape[0]:
        graph.add_vertices(batch.new_vertices)


class DynamicGraph:
    """An undirected simple graph under batched updates (see module docstring)."""

    def __init__(self) -> None:
        self.vertices = VertexMap()
        self._n = 0
        self._offsets = np.zeros(0, dtype=np.int64)
        self._degree = np.zeros(0, dtype=np.int32)
        self._capacity = np.zeros(0, dtype=np.int32)
        self.pool = np.zeros(row_layout.HOST.min_pool, dtype=np.int32)
        self.pool_used = 0
        self.num_edges = 0
        self._slot = np.zeros(0, dtype=np.int32)
        self.relocations = 0
        self.compactions = 0

    @property
    def num_vertices(self) -> int:
        """Vertices that currently have an edge."""
        return int(np.count_nonzero(self.degree))

    @property
    def max_degree(self) -> int:
        return int(self.degree.max(initial=0))

    def view(self) -> GraphView:
        return GraphView(self.offsets, self.degree, self.pool)

    def has_edges(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Edge test for internal id pairs (u[i], v[i])."""
        return _has_edges(self.offsets, self.degree, self.pool, u.astype(np.int64), v.astype(np.int64))

    def normalize(self, insert, delete) -> NormalizedBatch:
        """`normalize_batch` against this graph.  The vertices it adds are interned by
        `apply`; until then they only get empty rows (room in the arrays)."""
        batch = normalize_batch(self.vertices, self.has_edges, insert, delete)
        self._grow_vertices(batch.vertex_base + batch.new_vertices.shape[0])
        return batch

    def add_vertices(self, external: np.ndarray) -> None:
        """Intern unknown external ids as the next internal ids, in order (no edges yet)."""
        self.vertices.append(np.asarray(external, dtype=np.int64))
        self._grow_vertices(len(self.vertices))

    def apply(self, batch: NormalizedBatch) -> None:
        """G = (G - D) ∪ I for a batch normalized against this graph (or an equal one)."""
        admit_vertices(self, batch)
        directed = []
        flags = []
        for pairs, is_insert in ((batch.deleted, False), (batch.inserted, True)):
            if pairs.shape[0]:
                directed += [pairs, pairs[:, ::-1]]
                flags += [np.full(2 * pairs.shape[0], is_insert)]
        if not directed:
            return
        upd = np.concatenate(directed).astype(np.int64)
        insert = np.concatenate(flags)
        order, rows, starts = by_source(upd[:, 0], upd[:, 1])
        upd, insert = upd[order], insert[order]
        counts = np.diff(np.append(starts, upd.shape[0]))
        ins_per_row = np.add.reduceat(insert.astype(np.int64), starts)
        new_degree = self.degree[rows].astype(np.int64) + 2 * ins_per_row - counts
        new_offsets, new_capacity, used, moved, _ = row_layout.relocate(
            self.offsets[rows], self.capacity[rows], new_degree, self.pool_used, row_layout.HOST, np)
        if moved:
            self._reserve(used)
            self.capacity[rows] = new_capacity
            self.pool_used = used
            self.relocations += moved
        upd_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        width = max(1, int(new_degree.max(initial=0)), int(self.degree[rows].max(initial=0)))
        _rewrite_rows(self.offsets, self.degree, self.pool, rows, new_offsets, upd_ptr,
                      upd[:, 1].astype(np.int32), width)
        self.num_edges += batch.inserted.shape[0] - batch.deleted.shape[0]
        if row_layout.needs_compaction(self.pool_used, int(self.capacity.sum())):
            self.compact()

    def compact(self) -> None:
        """Rewrite all rows contiguously with fresh slack (`row_layout.packed`)."""
        new_offsets, cap, _, used, size = row_layout.packed(self.degree, row_layout.HOST, np)
        pool = np.zeros(size, dtype=np.int32)
        idx = np.repeat(np.arange(self.degree.shape[0]), self.degree)
        within = np.arange(idx.shape[0]) - np.repeat(np.cumsum(self.degree) - self.degree, self.degree)
        pool[new_offsets[idx] + within] = self.pool[self.offsets[idx] + within]
        self.pool, self.pool_used = pool, used
        self._offsets[: self._n] = new_offsets
        self._capacity[: self._n] = cap
        self.compactions += 1

    def edges(self) -> np.ndarray:
        """Every edge once as external-id pairs (u < v), sorted."""
        idx = np.repeat(np.arange(self.degree.shape[0]), self.degree)
        within = np.arange(idx.shape[0]) - np.repeat(np.cumsum(self.degree) - self.degree, self.degree)
        nbr = self.pool[self.offsets[idx] + within]
        ext = self.vertices.external
        pairs = np.stack([ext[idx], ext[nbr]], axis=1)
        return unique_pairs(pairs[pairs[:, 0] < pairs[:, 1]])

    def internal_edges(self) -> np.ndarray:
        """Every edge once as internal-id pairs (u < v internally), int32."""
        idx = np.repeat(np.arange(self.degree.shape[0], dtype=np.int32), self.degree)
        within = np.arange(idx.shape[0]) - np.repeat(np.cumsum(self.degree) - self.degree, self.degree)
        nbr = self.pool[self.offsets[idx] + within]
        keep = idx < nbr
        return np.stack([idx[keep], nbr[keep]], axis=1)

    def batch_view(self, pairs: np.ndarray) -> BatchView:
        """Per-vertex lookup of `pairs` (internal ids); pair i has rank i.  Call
        `release(view)` when done: the slot array is shared between batches.  Pairs may name
        the vertices a batch adds (not yet interned): they get empty rows."""
        self._grow_vertices(max(len(self.vertices), int(pairs.max(initial=-1)) + 1))
        n = self._n
        if self._slot.shape[0] < n:
            self._slot = np.full(max(n, 2 * self._slot.shape[0]), -1, dtype=np.int32)
        return BatchView.of_pairs(pairs, self._slot[:n])

    def release(self, view: BatchView) -> None:
        touched = np.flatnonzero(view.slot >= 0)
        self._slot[touched] = -1

    def _grow_vertices(self, n: int) -> None:
        """Make room for n internal vertices (arrays grow by doubling; views slice to n)."""
        self._n = max(self._n, n)
        old = self._degree.shape[0]
        if n <= old:
            return
        size = row_layout.grown_vertex_rows(n, old)
        for name, dtype in (("_offsets", np.int64), ("_degree", np.int32), ("_capacity", np.int32)):
            grown = np.zeros(size, dtype=dtype)
            grown[:old] = getattr(self, name)
            setattr(self, name, grown)

    @property
    def offsets(self) -> np.ndarray:
        return self._offsets[: self._n]

    @property
    def degree(self) -> np.ndarray:
        return self._degree[: self._n]

    @property
    def capacity(self) -> np.ndarray:
        return self._capacity[: self._n]

    def _reserve(self, size: int) -> None:
        if size > self.pool.shape[0]:
            pool = np.zeros(row_layout.grown_pool_size(size, self.pool.shape[0]), dtype=np.int32)
            pool[: self.pool_used] = self.pool[: self.pool_used]
            self.pool = pool
