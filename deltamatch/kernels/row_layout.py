"""The slack-row layout of the dynamic graph, defined once for the host and the device copy.

Row v lives at pool[offsets[v] : offsets[v] + degree[v]] inside a block of capacity[v]
slots.  A batch rewrites the rows it touches in place while they fit; a row that outgrows
its block moves to a fresh block appended at the end of the used pool (`relocate`), and
when more than half of the used pool is dead (`needs_compaction`) every row is rewritten
contiguously with fresh slack (`packed`).  The pool array itself grows by `grown_pool_size`.

The functions take the array module (`numpy` or `cupy`) as `xp` and return arrays of
that module plus plain ints, so `workers/graph.py` (host) and `GpuGraph` (device) run the
same policy.  They differ only in their `RowLayout`: device blocks are rounded to 32 slots
(128 bytes, one memory transaction), host blocks are not rounded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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


def round_up(x, block: int):
    """x rounded up to a multiple of `block` (an int or an integer array)."""
    return -(-x // block) * block


def fresh_capacity(degree, xp: Any):
    """int32 capacity of rows written afresh (a packed pool): a quarter of the degree as slack, plus 2."""
    degree = degree.astype(xp.int64)
    return (degree + degree // 4 + 2).astype(xp.int32)


def moved_capacity(new_degree, layout: RowLayout, xp: Any):
    """int32 capacity of a row that outgrew its block: twice its new degree, at least
    `min_capacity`, rounded up to the block."""
    want = xp.maximum(2 * new_degree.astype(xp.int64), layout.min_capacity)
    return round_up(want, layout.block).astype(xp.int32)


def relocate(offsets, capacity, new_degree, pool_used: int, layout: RowLayout, xp: Any):
    """Where the touched rows go, given their current `offsets`, `capacity` and `new_degree`
    (arrays over the touched rows): a row that still fits keeps its block; the others get
    `moved_capacity` blocks appended at `pool_used`, in row order.

    Returns (new_offsets int64, new_capacity int32, pool_used after, rows moved, change of
    the total capacity); the pool must be grown to `pool_used after` before use.
    """
    moving = new_degree.astype(xp.int64) > capacity
    need = xp.where(moving, moved_capacity(new_degree, layout, xp).astype(xp.int64), 0)
    ends = xp.cumsum(need)
    new_offsets = xp.where(moving, pool_used + ends - need, offsets.astype(xp.int64))
    new_capacity = xp.where(moving, need, capacity).astype(xp.int32)
    if need.shape[0] == 0:
        return new_offsets, new_capacity, pool_used, 0, 0
    # Totals as the last entries of int64 scans, like `ends`: CuPy compiles a full reduction
    # (`sum`) once per block size, and a block size per size class of the touched rows, so a
    # batch of a new size class would compile on the hot path; the scan kernel is the same.
    moved_to = xp.cumsum(moving.astype(xp.int64))
    grown_to = xp.cumsum(need - xp.where(moving, capacity, 0).astype(xp.int64))
    taken, moved, grown = (int(x) for x in xp.stack([ends[-1], moved_to[-1], grown_to[-1]]).tolist())
    return new_offsets, new_capacity, pool_used + taken, moved, grown


def packed(degree, layout: RowLayout, xp: Any):
    """Every row written contiguously with fresh slack: (offsets int64, capacity int32,
    live capacity, pool used, pool array size)."""
    capacity = fresh_capacity(degree, xp)
    ends = xp.cumsum(capacity, dtype=xp.int64)
    live = int(ends[-1]) if ends.shape[0] else 0
    used = round_up(live, layout.block)
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
