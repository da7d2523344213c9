"""The slack-row layout of the dynamic graph, defined once for the host and the device copy.

Row v lives at pool[offsets[v] : offsets[v] + degree[v]] inside a block of capacity[v]
slots.  A batch rewrites the rows it touches in place while they fit; a row that outgrows
its block moves to a fresh block appended at the end of the used pool (`relocate`), and
when more than half of the used pool is dead (`needs_compaction`) every row is rewritten
contiguously with fresh slack (`packed`).  The pool array itself grows by `grown_pool_size`.

`workers/graph.py` (host) and `GpuGraph` (device) run the same policy.  They differ only in
their `RowLayout`: device blocks are rounded to 32 slots (128 bytes, one memory transaction),
host blocks are not rounded.  The functions over all rows take the array module (`numpy` or
`cupy`) as `xp` and return arrays of that module plus plain ints; `relocate_rows`, over the rows
a batch touches, is compiled for the host, where both copies plan a batch (in one numba call
for the device's plan: `GpuGraph.apply`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

COMPACTION_SLACK = 4096  # dead slots tolerated beyond the live capacity before compacting
MIN_VERTEX_ROWS = 1024  # the vertex arrays' first allocation


@dataclass(frozen=True)
class RowLayout:
    """The constants of one copy's layout."""

    block: int  # a moved row's capacity and the packed pool's used length are multiples of this
    min_capacity: int  # the smallest capacity a moved row gets
    min_pool: int  # the smallest pool array

    def __post_init__(self) -> None:
        if self.block < 1 or self.min_capacity < 1 or self.min_pool < 1:
            raise ValueError(f"layout constants must be positive: {self}")


HOST = RowLayout(block=1, min_capacity=4, min_pool=1024)
DEVICE = RowLayout(block=32, min_capacity=32, min_pool=1 << 16)


@njit(cache=True)
def round_up(x, block: int):
    """x rounded up to a multiple of `block` (an int or an integer array)."""
    return -(-x // block) * block


def fresh_capacity(degree, xp: Any):
    """int32 capacity of rows written afresh (a packed pool): a quarter of the degree as slack, plus 2."""
    degree = degree.astype(xp.int64)
    return (degree + degree // 4 + 2).astype(xp.int32)


@njit(cache=True)
def moved_capacity(new_degree: int, block: int, min_capacity: int) -> int:
    """Capacity of a row that outgrew its block: twice its new degree, at least
    `min_capacity`, rounded up to the block."""
    return round_up(max(2 * new_degree, min_capacity), block)


@njit(cache=True)
def relocate_rows(offsets, capacity, new_degree, pool_used, block, min_capacity):
    """Where the touched rows go, given their current `offsets`, `capacity` and `new_degree`
    (arrays over the touched rows) and the layout's `block` and `min_capacity`: a row that
    still fits keeps its block; the others get `moved_capacity` blocks appended at `pool_used`,
    in row order.

    Returns (new_offsets int64, new_capacity int32, pool_used after, rows moved, change of
    the total capacity); the pool must be grown to `pool_used after` before use.
    """
    n = new_degree.shape[0]
    new_offsets = np.empty(n, dtype=np.int64)
    new_capacity = np.empty(n, dtype=np.int32)
    used, moved, grown = pool_used, 0, 0
    for r in range(n):
        if new_degree[r] > capacity[r]:
            need = moved_capacity(new_degree[r], block, min_capacity)
            new_offsets[r] = used
            new_capacity[r] = need
            used += need
            moved += 1
            grown += need - capacity[r]
        else:
            new_offsets[r] = offsets[r]
            new_capacity[r] = capacity[r]
    return new_offsets, new_capacity, used, moved, grown


def relocate(offsets: np.ndarray, capacity: np.ndarray, new_degree: np.ndarray, pool_used: int,
             layout: RowLayout) -> tuple[np.ndarray, np.ndarray, int, int, int]:
    """`relocate_rows` under `layout`."""
    new_offsets, new_capacity, used, moved, grown = relocate_rows(
        offsets, capacity, new_degree, pool_used, layout.block, layout.min_capacity)
    return new_offsets, new_capacity, int(used), int(moved), int(grown)


def packed(degree, layout: RowLayout, xp: Any):
    """Every row written contiguously with fresh slack: (offsets int64, capacity int32,
    live capacity, pool used, pool array size)."""
    capacity = fresh_capacity(degree, xp)
    ends = xp.cumsum(capacity, dtype=xp.int64)
    live = int(ends[-1]) if ends.shape[0] else 0
    used = int(round_up(live, layout.block))
    return ends - capacity, capacity, live, used, max(used + used // 4, layout.min_pool)


def grown_pool_size(wanted: int, current: int) -> int:
    """The new length of a pool that must hold `wanted` slots: a quarter of headroom, at
    least double the current length."""
    return max(wanted + wanted // 4, 2 * current)


def grown_vertex_rows(wanted: int, current: int) -> int:
    """The new length of the per-vertex arrays that must hold `wanted` rows (doubling)."""
    return max(wanted, 2 * current, MIN_VERTEX_ROWS)


def needs_compaction(pool_used: int, live_capacity: int) -> bool:
    """Whether the pool holds more than half dead slots (beyond a fixed tolerance)."""
    return pool_used > 2 * live_capacity + COMPACTION_SLACK
