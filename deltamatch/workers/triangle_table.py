"""Triangles through every edge of a `GpuGraph`, kept by its batches (kernels/triangle_table.cu).

The edge-induced diamond is two triangles sharing its chord, so a graph holds sum over edges e of
C(t_e, 2) of them.  A batch changes t only on the edges of the triangles through its changed pairs,
so with every t kept on the device its diamond delta is a pass over those triangles (what the
triangle pattern's batch costs) instead of a match run whose last levels enumerate, per triangle,
the other triangles of each edge.  The table is the graph's companion: `GpuGraph.apply` runs the
deletion side on G_old and the insertion side on G_new.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from deltamatch.kernels import cuda_engine as engine
from deltamatch.kernels.pair_table import EMPTY

if TYPE_CHECKING:
    from deltamatch.workers.cuda_backend import GpuGraph

BUILD_LOAD = 0.4  # keys per slot when the table is built; it is built again past MAX_LOAD
MAX_LOAD = 0.7  # linear probing's expected probes per hit, (1 + 1 / (1 - load)) / 2 (Knuth), stay below 2.2
MIN_BITS = 10
THREADS = 256
# Members of a pair's shorter row one warp looks up (tt_side_triangles' pieces): 8 warp steps.
PIECE = 256
HUB_LOOKUPS = True  # whether a member is looked up in the longer row's hub bitmap, where it has one


class _Side(NamedTuple):
    """One side's pairs on the device (ends a, b; `first`: each pair's first piece) for
    tt_side_triangles, their pieces in all, and a bound on the slots their triangles touch."""

    a: Any
    b: Any
    first: Any
    pieces: int
    bound: int


class TriangleTable:
    """Every edge of a `GpuGraph` with the triangles through it, and their diamonds (module
    docstring).  `diamonds` is the graph's edge-induced diamond count, exact after every call."""

    def __init__(self, rows: GpuGraph) -> None:
        self._cp = engine.cupy()
        self.rebuilds = 0
        self.rebuild(rows)

    @property
    def capacity(self) -> int:
        return 1 << self.bits

    def rebuild(self, rows: GpuGraph) -> None:
        """The table of the rows as they are now (`cuda_engine.edge_triangle_counts`)."""
        cp = self._cp
        n = rows.num_edges
        if n:  # an edgeless graph has nothing to relabel or count
            a, b, t = engine.edge_triangle_counts(rows.view_rows(), rows.n)
        self.bits = max(MIN_BITS, math.ceil(math.log2(max(n, 1) / BUILD_LOAD)))
        self.keys = None  # the old table's memory goes back first
        self.keys = cp.full(self.capacity, EMPTY, dtype=cp.uint64)
        self.t = cp.zeros(self.capacity, dtype=cp.uint32)
        self.pending = cp.zeros(self.capacity, dtype=cp.int32)
        self.rank = cp.full(self.capacity, -1, dtype=cp.int32)
        if n:
            slot = cp.empty(n, dtype=cp.int64)
            engine.kernel("triangle_table.cu", "tt_insert")(
                (engine.grid_blocks(n),), (THREADS,),
                (self.keys, np.int32(self.bits), a, b, np.int64(n), t, self.t, self.rank, np.int32(0), slot))
        self.held = n  # keys and tombstones
        self.diamonds = engine.pair_sum(t) if n else 0
        self.rebuilds += 1

    def deletions(self, rows: GpuGraph, pairs: np.ndarray) -> int:
        """The diamonds that deleting `pairs` (edges, internal ids) destroys, counted on the rows
        before the deletion; their edges leave the table."""
        n = int(pairs.shape[0])
        if n == 0:
            return 0
        cp = self._cp
        side = self._ends(rows, pairs)
        slot = cp.empty(n, dtype=cp.int64)
        engine.kernel("triangle_table.cu", "tt_mark")(
            (engine.grid_blocks(n),), (THREADS,),
            (self.keys, np.int32(self.bits), side.a, side.b, np.int64(n), self.rank, slot))
        total = self._side(rows, side, slot, -1)
        engine.kernel("triangle_table.cu", "tt_delete")(
            (engine.grid_blocks(n),), (THREADS,), (self.keys, self.t, self.rank, slot, np.int64(n), total))
        removed = int(total.get()[0])
        self.diamonds -= removed
        return removed

    def insertions(self, rows: GpuGraph, pairs: np.ndarray) -> int:
        """The diamonds that inserting `pairs` (new edges, internal ids) created, counted on the rows
        after the insertion; their edges join the table (which is built again instead when they
        would fill it past MAX_LOAD)."""
        n = int(pairs.shape[0])
        if n == 0:
            return 0
        if self.held + n > MAX_LOAD * self.capacity:
            before = self.diamonds
            self.rebuild(rows)
            return self.diamonds - before
        cp = self._cp
        side = self._ends(rows, pairs)
        slot = cp.empty(n, dtype=cp.int64)
        engine.kernel("triangle_table.cu", "tt_insert")(
            (engine.grid_blocks(n),), (THREADS,),
            (self.keys, np.int32(self.bits), side.a, side.b, np.int64(n), engine.NULL, self.t, self.rank,
             np.int32(1), slot))
        total = self._side(rows, side, slot, 1)
        engine.kernel("triangle_table.cu", "tt_unrank")(
            (engine.grid_blocks(n),), (THREADS,), (self.rank, slot, np.int64(n)))
        added = int(total.get()[0])
        self.held += n
        self.diamonds += added
        return added

    def _ends(self, rows: GpuGraph, pairs: np.ndarray) -> _Side:
        """The pairs on the device, each with its pieces of PIECE members of its shorter row, from
        the rows' degrees as the host holds them, and a bound on the slots their triangles touch:
        two per common neighbour and one per pair."""
        pairs = np.asarray(pairs, dtype=np.int32).reshape(-1, 2)
        deg = rows.host_degree
        common = np.minimum(deg[pairs[:, 0]], deg[pairs[:, 1]]).astype(np.int64)
        pieces = np.maximum(1, -(-common // PIECE))
        first = (np.cumsum(pieces) - pieces).astype(np.int32)
        a, b, on_device = engine.upload(np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1]),
                                        first)
        return _Side(a, b, on_device, int(pieces.sum()), int(2 * common.sum()) + pairs.shape[0])

    def _side(self, rows: GpuGraph, side: _Side, slot, sign: int):
        """One side's triangles into `pending`, then settled into t: the device's uint64 total."""
        cp = self._cp
        listed = cp.empty(max(side.bound, 1), dtype=cp.int64)
        n_listed = cp.zeros(1, dtype=cp.uint64)
        total = cp.zeros(1, dtype=cp.uint64)
        hub = rows.hub_rows if HUB_LOOKUPS else None
        engine.kernel("triangle_table.cu", "tt_side_triangles")(
            (engine.grid_blocks(side.pieces, THREADS // 32),), (THREADS,),
            (rows.offsets, rows.degree, rows.pool, engine.NULL if hub is None else hub, self.keys,
             np.int32(self.bits), side.a, side.b, side.first, np.int32(side.pieces), np.int32(PIECE), slot,
             np.int32(side.a.shape[0]), self.rank, self.pending, listed, n_listed))
        engine.kernel("triangle_table.cu", "tt_settle")(
            (engine.grid_blocks(side.bound),), (THREADS,),
            (self.t, self.pending, self.rank, listed, n_listed, np.int32(sign), total))
        return total
