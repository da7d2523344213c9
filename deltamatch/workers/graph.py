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
from deltamatch.kernels.pair_order import pair_keys, sort_keys, sorted_unique
from deltamatch.kernels.plan_table import BatchView, GraphView
from deltamatch.kernels.sorted_rows import adjacent, lower_bound

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
    bad, loop = first_bad_pairs(arr, MAX_VERTEX_ID)
    if bad >= 0:
        u, v = arr[bad]
        raise GraphInputError(f"{what}[{bad}]: vertex ids must be in 0..{MAX_VERTEX_ID}, got [{u}, {v}]")
    if loop >= 0:
        raise GraphInputError(f"{what}[{loop}]: self-loop [{arr[loop, 0]}, {arr[loop, 1]}]")
    return arr


@njit(cache=True)
def first_bad_pairs(arr, max_id):
    """(first row with an id outside 0..max_id, first self-loop row), -1 where none."""
    loop = -1
    for i in range(arr.shape[0]):
        u, v = arr[i, 0], arr[i, 1]
        if u < 0 or v < 0 or u > max_id or v > max_id:
            return i, loop
        if loop < 0 and u == v:
            loop = i
    return -1, loop


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

    Lookups probe an open-addressing hash table of internal ids (int32) keyed by their external id
    (linear probing, at most half full, doubled and refilled when it would be more), and
    `external` grows by doubling, so interning a batch's new vertices costs O(new) amortized
    and a lookup O(1) per id (a sorted index took ~25 ns per id to search, and np.insert into
    a 4M-entry one 14 ms per batch)."""

    def __init__(self, external: np.ndarray | None = None):
        ext = np.zeros(0, dtype=np.int64) if external is None else np.asarray(external, dtype=np.int64)
        self._buffer = ext.copy()
        self._n = ext.shape[0]
        self._table = np.full(16, -1, dtype=np.int32)
        self._index(0)

    def __len__(self) -> int:
        return self._n

    @property
    def external(self) -> np.ndarray:
        """External id of every internal id (a view: copy it to keep it)."""
        return self._buffer[: self._n]

    def lookup(self, ids: np.ndarray) -> np.ndarray:
        """Internal ids of `ids` (int64, same shape), -1 where unknown."""
        ids = np.asarray(ids, dtype=np.int64)
        flat = np.ascontiguousarray(ids).reshape(-1)
        return _hash_lookup(self._table, self._buffer, flat).reshape(ids.shape)

    def intern(self, ids: np.ndarray) -> np.ndarray:
        """Internal ids of `ids`, assigning new ones (in order of first appearance) to unknown ids."""
        ids = np.asarray(ids, dtype=np.int64)
        internal, new = self.tentative(ids)
        if new.shape[0]:
            self._append(new)
        return internal.reshape(ids.shape)

    def _append(self, new: np.ndarray) -> None:
        """Record the distinct, unknown external ids `new` as the next internal ids, in order."""
        base, end = self._n, self._n + new.shape[0]
        if end > self._buffer.shape[0]:
            grown = np.empty(max(end, 2 * self._buffer.shape[0]), dtype=np.int64)
            grown[:base] = self._buffer[:base]
            self._buffer = grown
        self._buffer[base:end] = new
        self._n = end
        self._index(base)

    def _index(self, start: int) -> None:
        """Enter internal ids start .. n-1 in the table, first doubling it (and re-entering
        every id) when it would be more than half full."""
        if 2 * self._n > self._table.shape[0]:
            size = 1 << max(4, (2 * self._n).bit_length())
            self._table = np.full(size, -1, dtype=np.int32)
            start = 0
        _hash_insert(self._table, self._buffer, start, self._n)

    def append(self, ids: np.ndarray) -> None:
        """Give the unknown external `ids` the next internal ids, in order; raises ValueError
        (changing nothing) unless they are distinct and unknown."""
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        ordered = np.sort(ids)
        if (ordered[1:] == ordered[:-1]).any() or (self.lookup(ids) >= 0).any():
            raise ValueError("vertices to append must be distinct and unknown")
        self._append(ids)

    def tentative(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(internal ids of `ids`, the unknown ids in order of first appearance): what
        `intern` would assign, without assigning it."""
        ids = np.ascontiguousarray(ids, dtype=np.int64).reshape(-1)
        internal = self.lookup(ids)
        return internal, _number_unknown(ids, internal, len(self))


_HASH_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: 2^64 / golden ratio


@njit(cache=True)
def _hash_slot(table, external, x):
    """The slot of external id x in `table` (power-of-two size): the one holding the internal
    id whose external id is x, or the empty (-1) slot where x would go."""
    mask = table.shape[0] - 1
    i = np.int64((np.uint64(x) * _HASH_MULTIPLIER) >> np.uint64(32)) & mask
    while table[i] >= 0 and external[table[i]] != x:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _hash_insert(table, external, start, stop):
    """Enter internal ids start .. stop-1 (keyed by external[id]); a repeated external id keeps
    its first internal id."""
    for v in range(start, stop):
        i = _hash_slot(table, external, external[v])
        if table[i] < 0:
            table[i] = v


@njit(cache=True)
def _hash_lookup(table, external, ids):
    """Internal id of every external id in `ids`, -1 where unknown."""
    out = np.empty(ids.shape[0], dtype=np.int64)
    for j in range(ids.shape[0]):
        out[j] = table[_hash_slot(table, external, ids[j])]
    return out


@njit(cache=True)
def _number_unknown(ids, internal, base):
    """Give the ids with internal[i] < 0 the ids base, base + 1, ... in order of first
    appearance (repeats share one), in place; returns those distinct ids in that order."""
    pos = np.flatnonzero(internal < 0)
    m = pos.shape[0]
    vals = ids[pos]
    order = np.argsort(vals)
    head = np.empty(m, dtype=np.int64)  # per unknown entry: the index of its value's first entry
    start = 0
    for j in range(1, m + 1):
        if j == m or vals[order[j]] != vals[order[start]]:
            first = order[start]
            for t in range(start + 1, j):
                first = min(first, order[t])
            for t in range(start, j):
                head[order[t]] = first
            start = j
    rank = np.empty(m, dtype=np.int64)
    new = np.empty(m, dtype=np.int64)
    n = 0
    for e in range(m):
        if head[e] == e:
            rank[e] = n
            new[n] = vals[e]
            n += 1
        internal[pos[e]] = base + rank[head[e]]
    return new[:n]


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
    # `grouped_updates` of this batch, kept by the first graph that groups it (`updates_by_row`):
    # the scheduler's features and graph and an in-process replica use the same batch object on
    # equal graphs.  Not pickled.
    _by_row: list = field(default_factory=list, init=False, repr=False, compare=False)

    @property
    def changed(self) -> np.ndarray:
        return np.concatenate([self.deleted, self.inserted]).reshape(-1, 2)

    def halves(self, insertions_first: bool = False) -> tuple[NormalizedBatch, NormalizedBatch]:
        """The deletions alone, then the insertions with the vertices they add: applied in turn
        they apply this batch, through G_old less the deletions.  `insertions_first`: the
        insertions, then the deletions, through G_old ∪ I (a joint count's graph)."""
        none = np.zeros((0, 2), dtype=self.inserted.dtype)
        insertions = NormalizedBatch(none, self.inserted, self.ignored, self.vertex_base, self.new_vertices)
        if insertions_first:
            grown = self.vertex_base + self.new_vertices.shape[0]
            return insertions, NormalizedBatch(self.deleted, none, 0, grown)
        return NormalizedBatch(self.deleted, none, 0, self.vertex_base), insertions

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_by_row": []}


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
def _rewrite_chunk(c, n_chunks, offsets, degree, pool, rows, new_offsets, new_degree, upd_ptr, upd_nbr,
                   width):
    """Rows c, c + n_chunks, ...: merge each with its sorted updates (a deletion of a present
    neighbour or an insertion of an absent one) into its (possibly new) block.  A row that
    moves is merged straight into its new block; one that stays is merged in place, from its
    end when it only gains neighbours (the entries below its smallest insertion stay where
    they are) and from its start when it only loses some; a row that does both in place goes
    through a scratch row."""
    tmp = np.empty(width, dtype=np.int32)
    for r in range(c, rows.shape[0], n_chunks):
        v = rows[r]
        start, d = offsets[v], degree[v]
        j, end = upd_ptr[r], upd_ptr[r + 1]
        dst, n = new_offsets[r], new_degree[r]
        if dst == start and n == d + end - j:
            _insert_backward(pool, start, d, upd_nbr, j, end)
        elif dst == start and n == d - (end - j):
            _delete_forward(pool, start, d, upd_nbr, j, end)
        elif dst != start:
            _merge_into(pool, start, d, upd_nbr, j, end, pool, dst)
        else:
            _merge_into(pool, start, d, upd_nbr, j, end, tmp, 0)
            pool[dst:dst + n] = tmp[:n]
        offsets[v] = dst
        degree[v] = n


@njit(cache=True, inline="always")
def _merge_into(pool, start, d, upd_nbr, j, end, out, at):
    """Row pool[start : start+d] merged with upd_nbr[j:end] into out[at:], not overlapping it:
    an update equal to a row entry deletes it, any other is inserted."""
    i = 0
    while i < d or j < end:
        if j == end or (i < d and pool[start + i] < upd_nbr[j]):
            out[at] = pool[start + i]
            at += 1
            i += 1
        elif i < d and pool[start + i] == upd_nbr[j]:
            i += 1
            j += 1
        else:
            out[at] = upd_nbr[j]
            at += 1
            j += 1


@njit(cache=True, inline="always")
def _insert_backward(pool, start, d, upd_nbr, j, end):
    """Insert upd_nbr[j:end] (none in the row) into the row pool[start : start+d], in place
    (its block has room): from the largest down, until every insertion is placed."""
    i = d - 1
    e = end - 1
    w = start + d + end - j - 1
    while e >= j:
        x = upd_nbr[e]
        if i >= 0 and pool[start + i] > x:
            pool[w] = pool[start + i]
            i -= 1
        else:
            pool[w] = x
            e -= 1
        w -= 1


@njit(cache=True, inline="always")
def _delete_forward(pool, start, d, upd_nbr, j, end):
    """Delete upd_nbr[j:end] (all in the row) from the row pool[start : start+d], in place."""
    w = start + lower_bound(pool, start, d, upd_nbr[j])
    for i in range(w - start, d):
        x = pool[start + i]
        if j < end and x == upd_nbr[j]:
            j += 1
        else:
            pool[w] = x
            w += 1


@njit(cache=True)
def _put_directed_keys(pairs, flag, keys, at):
    for j in range(pairs.shape[0]):
        a, b = np.int64(pairs[j, 0]), np.int64(pairs[j, 1])
        keys[at + 2 * j] = (a << 32) | (b << 1) | flag
        keys[at + 2 * j + 1] = (b << 32) | (a << 1) | flag


@njit(cache=True)
def grouped_updates(deleted: np.ndarray, inserted: np.ndarray, degree: np.ndarray) -> tuple:
    """A batch's directed updates grouped by row, for a graph of these degrees: (rows int64,
    upd_ptr int64, upd_nbr int32, upd_inserted bool, new_degree int64, width), rows ascending,
    row r's updates at [upd_ptr[r], upd_ptr[r + 1]) by neighbour (ascending; of one neighbour,
    a deletion first), its degree after them, and the largest degree a touched row has before
    or after (at least 1).  The host graph and the device graph's host-side plan both apply
    batches from it.

    Each update is one sorted key, src << 32 | dst << 1 | inserted (ids below 2^31), so a plain
    sort (`pair_order.sort_keys`) gives the order a stable argsort of src << 32 | dst gave:
    numba's stable argsort (mergesort) took 3.4x its quicksort at 2,000 keys (session 14, on
    this project's machine)."""
    n_del = deleted.shape[0]
    keys = np.empty(2 * (n_del + inserted.shape[0]), dtype=np.int64)
    _put_directed_keys(deleted, 0, keys, 0)
    _put_directed_keys(inserted, 1, keys, 2 * n_del)
    sort_keys(keys)
    return _updates_by_row(keys, degree)


def updates_by_row(batch: NormalizedBatch, degree: np.ndarray) -> tuple:
    """`grouped_updates` of `batch` on a graph of these degrees (normalized against it), computed
    once per batch object."""
    if not batch._by_row:
        batch._by_row.append(grouped_updates(batch.deleted, batch.inserted, degree))
    return batch._by_row[0]


@njit(cache=True)
def _updates_by_row(keys, degree):
    """`grouped_updates` from its sorted keys."""
    m = keys.shape[0]
    upd_nbr = np.empty(m, dtype=np.int32)
    upd_inserted = np.empty(m, dtype=np.bool_)
    rows = np.empty(m, dtype=np.int64)
    upd_ptr = np.empty(m + 1, dtype=np.int64)
    new_degree = np.empty(m, dtype=np.int64)
    n = 0
    width = 1
    for t in range(m):
        src = keys[t] >> 32
        if t == 0 or src != rows[n - 1]:
            rows[n] = src
            upd_ptr[n] = t
            new_degree[n] = degree[src]
            width = max(width, degree[src])
            n += 1
        upd_nbr[t] = (keys[t] & 0xFFFFFFFF) >> 1
        upd_inserted[t] = keys[t] & 1
        new_degree[n - 1] += 1 if upd_inserted[t] else -1
    upd_ptr[n] = m
    for r in range(n):
        width = max(width, new_degree[r])
    return rows[:n], upd_ptr[: n + 1], upd_nbr, upd_inserted, new_degree[:n], width


@njit(parallel=True, cache=True)
def _rewrite_rows_parallel(offsets, degree, pool, rows, new_offsets, new_degree, upd_ptr, upd_nbr, width,
                           n_chunks):
    for c in prange(n_chunks):
        _rewrite_chunk(c, n_chunks, offsets, degree, pool, rows, new_offsets, new_degree, upd_ptr, upd_nbr,
                       width)


# Below this many pairs or rows, a parallel launch costs more than it saves.
_PARALLEL_MIN = 4096


def _has_edges(offsets, degree, pool, us, vs) -> np.ndarray:
    if us.shape[0] < _PARALLEL_MIN or numba.get_num_threads() == 1:
        return _has_edges_serial(offsets, degree, pool, us, vs)
    return _has_edges_parallel(offsets, degree, pool, us, vs)


def _rewrite_rows(offsets, degree, pool, rows, new_offsets, new_degree, upd_ptr, upd_nbr, width) -> None:
    """Rewrite the touched rows; one scratch row per chunk of rows, not per row."""
    threads = numba.get_num_threads()
    if rows.shape[0] < _PARALLEL_MIN or threads == 1:
        _rewrite_chunk(0, 1, offsets, degree, pool, rows, new_offsets, new_degree, upd_ptr, upd_nbr, width)
    else:
        _rewrite_rows_parallel(offsets, degree, pool, rows, new_offsets, new_degree, upd_ptr, upd_nbr, width,
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
        self._live_capacity = 0  # capacity.sum(), kept as rows move and the pool is packed
        self.num_edges = 0
        self._slot = np.zeros(0, dtype=np.int32)
        self._slot_open = False  # a view holds the shared slot array (`batch_view`)
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
        """G = (G - D) ∪ I for a batch normalized against this graph (or an equal one: the
        rows' updates and degrees are computed once per batch object, for the first graph)."""
        admit_vertices(self, batch)
        if batch.deleted.shape[0] + batch.inserted.shape[0] == 0:
            return
        rows, upd_ptr, upd_nbr, _, new_degree, width = updates_by_row(batch, self.degree)
        new_offsets, new_capacity, used, moved, grown = row_layout.relocate(
            self.offsets[rows], self.capacity[rows], new_degree, self.pool_used, row_layout.HOST)
        if moved:
            self._reserve(used)
            self.capacity[rows] = new_capacity
            self.pool_used = used
            self.relocations += moved
            self._live_capacity += grown
        _rewrite_rows(self.offsets, self.degree, self.pool, rows, new_offsets, new_degree, upd_ptr, upd_nbr,
                      width)
        self.num_edges += batch.inserted.shape[0] - batch.deleted.shape[0]
        if row_layout.needs_compaction(self.pool_used, self._live_capacity):
            self.compact()

    def compact(self) -> None:
        """Rewrite all rows contiguously with fresh slack (`row_layout.packed`)."""
        new_offsets, cap, live, used, size = row_layout.packed(self.degree, row_layout.HOST, np)
        self._live_capacity = live
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
        `release(view)` when done: the slot array is shared between batches.  A view opened
        while another is (a whole-graph recount inside a batch) gets slots of its own, O(V).
        Pairs may name the vertices a batch adds (not yet interned): they get empty rows."""
        self._grow_vertices(max(len(self.vertices), int(pairs.max(initial=-1)) + 1))
        n = self._n
        if self._slot_open:
            return BatchView.of_pairs(pairs, np.full(n, -1, dtype=np.int32))
        if self._slot.shape[0] < n:
            self._slot = np.full(max(n, 2 * self._slot.shape[0]), -1, dtype=np.int32)
        self._slot_open = True
        return BatchView.of_pairs(pairs, self._slot[:n])

    def release(self, view: BatchView) -> None:
        """Clear the slots `view` filled (its vertices are its partners), O(batch)."""
        if view.slot.base is self._slot:
            self._slot[view.partner] = -1
            self._slot_open = False

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
