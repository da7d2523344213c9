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
from numba import njit

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


class Side(NamedTuple):
    """One side's pairs for tt_side_triangles (`plan_side`): their ends a, b and each pair's first
    piece (int32 host arrays, or their device addresses once uploaded), the pairs' number, their
    pieces in all and a bound on the slots their triangles touch."""

    a: Any
    b: Any
    first: Any
    n: int
    pieces: int
    bound: int

    @property
    def arrays(self) -> tuple:
        """The arrays uploaded: a, b and first."""
        return self.a, self.b, self.first

    def uploaded(self, addresses) -> Side:
        """The side with the device addresses of its `arrays` in their place."""
        a, b, first = addresses
        return self._replace(a=a, b=b, first=first)


def plan_side(pairs: np.ndarray, degree: np.ndarray) -> Side:
    """A side's pairs (edges, internal ids, as rows of two) each with its pieces of PIECE members of
    its shorter row, from the rows' degrees on that side (the host's copy), and a bound on the
    slots their triangles touch: two per common neighbour and one per pair.  One numba call: as
    numpy calls it was some fifteen of them a side."""
    a, b, first, pieces, bound = _plan_side(np.asarray(pairs).reshape(-1, 2), degree, PIECE)
    return Side(a, b, first, a.shape[0], int(pieces), int(bound))


@njit(cache=True)
def _plan_side(pairs, degree, piece):
    n = pairs.shape[0]
    a = np.empty(n, dtype=np.int32)
    b = np.empty(n, dtype=np.int32)
    first = np.empty(n, dtype=np.int32)
    pieces = 0
    common = 0
    for i in range(n):
        a[i], b[i] = pairs[i, 0], pairs[i, 1]
        shorter = min(degree[a[i]], degree[b[i]])
        first[i] = pieces
        pieces += max(1, (shorter + piece - 1) // piece)
        common += shorter
    return a, b, first, pieces, 2 * common + n


class TriangleTable:
    """Every edge of a `GpuGraph` with the triangles through it, and their diamonds (module
    docstring).  `diamonds` is the graph's edge-induced diamond count, exact after every call."""

    def __init__(self, rows: GpuGraph) -> None:
        self._cp = engine.cupy()
        self.rebuilds = 0
        self._words = None  # a batch's device words (`start`)
        self._rebuilt_gain: int | None = None  # a batch's diamonds created, where its insertions rebuilt
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

    def start(self) -> None:
        """A batch's sides begin: their listed slots' counts and totals, four device words zeroed
        in one call, read once by `settle`."""
        self._words = self._cp.zeros(4, dtype=self._cp.uint64)  # per side: listed slots, total
        self._rebuilt_gain = None

    def queue_deletions(self, rows: GpuGraph, side: Side) -> None:
        """Queues the count of the diamonds that deleting the side's pairs (held edges, uploaded by
        `plan_side` and `upload_addresses`) destroys, on the rows before the deletion, and their
        edges' removal from the table."""
        if side.n == 0:
            return
        slot = self._cp.empty(side.n, dtype=self._cp.int64)
        engine.kernel("triangle_table.cu", "tt_mark")(
            (engine.grid_blocks(side.n),), (THREADS,),
            (self.keys, np.int32(self.bits), side.a, side.b, np.int64(side.n), self.rank, slot))
        n_listed, total = engine.word(self._words, 0), engine.word(self._words, 1)
        self._queue_side(rows, side, slot, -1, n_listed, total)
        engine.kernel("triangle_table.cu", "tt_delete")(
            (engine.grid_blocks(side.n),), (THREADS,),
            (self.keys, self.t, self.rank, slot, np.int64(side.n), total))

    def queue_insertions(self, rows: GpuGraph, side: Side) -> None:
        """Queues the count of the diamonds that inserting the side's pairs (new edges) created, on
        the rows after the insertion, and their edges' entry into the table; where they would fill
        it past MAX_LOAD, the table is built again instead (now: `settle` reports its gain)."""
        if side.n == 0:
            return
        if self.held + side.n > MAX_LOAD * self.capacity:
            before = self.diamonds
            self.rebuild(rows)
            self._rebuilt_gain = self.diamonds - before
            self.diamonds = before
            return
        slot = self._cp.empty(side.n, dtype=self._cp.int64)
        engine.kernel("triangle_table.cu", "tt_insert")(
            (engine.grid_blocks(side.n),), (THREADS,),
            (self.keys, np.int32(self.bits), side.a, side.b, np.int64(side.n), engine.NULL, self.t, self.rank,
             np.int32(1), slot))
        self._queue_side(rows, side, slot, 1, engine.word(self._words, 2), engine.word(self._words, 3))
        engine.kernel("triangle_table.cu", "tt_unrank")(
            (engine.grid_blocks(side.n),), (THREADS,), (self.rank, slot, np.int64(side.n)))
        self.held += side.n

    def settle(self) -> tuple[int, int]:
        """Waits for the batch's queued sides: the diamonds its deletions destroyed and its
        insertions created (one read of the device), now in `diamonds`."""
        words = self._words.get()
        destroyed = int(words[1])
        created = int(words[3]) if self._rebuilt_gain is None else self._rebuilt_gain + destroyed
        self.diamonds += created - destroyed
        return destroyed, created

    def _queue_side(self, rows: GpuGraph, side: Side, slot, sign: int, n_listed, total) -> None:
        """One side's triangles into `pending`, then settled into t, the side's total into `total`
        (device words, by address)."""
        listed = self._cp.empty(max(side.bound, 1), dtype=self._cp.int64)
        hub = rows.hub_rows if HUB_LOOKUPS else None
        engine.kernel("triangle_table.cu", "tt_side_triangles")(
            (engine.grid_blocks(side.pieces, THREADS // 32),), (THREADS,),
            (rows.offsets, rows.degree, rows.pool, engine.NULL if hub is None else hub, self.keys,
             np.int32(self.bits), side.a, side.b, side.first, np.int32(side.pieces), np.int32(PIECE), slot,
             np.int32(side.n), self.rank, self.pending, listed, n_listed))
        engine.kernel("triangle_table.cu", "tt_settle")(
            (engine.grid_blocks(side.bound),), (THREADS,),
            (self.t, self.pending, self.rank, listed, n_listed, np.int32(sign), total))
