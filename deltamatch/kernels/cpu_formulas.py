"""Whole-graph counts by formula on the CPU: the edge-induced diamond, 4-cycle and house.

They read the triangles through every edge, t(e), and the 4-cycles through every edge, never
listing a match, so a count costs about what counting triangles and 4-cycles costs:

- diamonds = sum over edges of C(t(e), 2): a diamond is two triangles sharing its chord;
- 4-cycles, each counted once at its vertex u of highest rank (rank: degree, then id; Chiba and
  Nishizeki's orientation): with c(u, w) the wedges u - v - w whose v and w rank below u, the
  cycles at u number the sum over w of C(c(u, w), 2);
- houses = sum over edges of t(e) * c4(e) - 4 * diamonds, with c4(e) the 4-cycles through e.
  A house is a triangle and a 4-cycle sharing one edge (its only edge in both), so the pairs
  (apex of a triangle on e, 4-cycle through e) count every house once, plus the pairs whose
  apex is one of the cycle's two other vertices.  The apex x of edge (a, b) is the cycle's
  vertex next to b in t(a, x) - 1 pairs and the one next to a in t(b, x) - 1; summed over the
  three (edge, apex) choices of every triangle that is 2 * sum over edges of t(e) (t(e) - 1),
  four times the diamonds.  The sum of t(e) * c4(e) runs over the same oriented wedges as the
  4-cycles: each cycle adds its four edges' t through its two wedges at u.

The counts are split by `part`/`parts` as the engines' whole-graph counts are (the shares of parts
0 .. parts-1 sum to the count): 4-cycles and the house's wedge sum by the cycle's top vertex u, the
diamonds by the edge's end of higher rank, so that a diamond's share runs the triangle pass from
its own vertices only.  The graph is a `GraphView` (sorted rows with slack); nothing is
relabelled.  The CUDA engine counts all three by the same formulas (`formulas.cu`).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from deltamatch.kernels.plan_table import (
    GraphView,
    PlanTable,
    is_edge_induced_diamond,
    is_edge_induced_four_cycle,
    is_edge_induced_house,
)


@njit(parallel=True, cache=True)
def _slot_triangles(offsets, degree, pool, rank, us, blocks):
    """t per pool slot (int32): slot off[u] + i holds |N(u) & N(v)| for v = pool[off[u] + i], both
    slots of an edge alike; slack slots 0.  An edge is computed at its endpoint u of higher rank:
    u's row is marked in its block's array, and t is the marked members of v's row, the shorter
    one (one load each, no search).  us (every vertex, in random order) is dealt round-robin over
    the `blocks` blocks, one per thread."""
    n = offsets.shape[0]
    t = np.zeros(pool.shape[0], dtype=np.int32)
    for b in prange(blocks):
        mark = np.full(n, -1, dtype=np.int32)
        for idx in range(b, us.shape[0], blocks):
            u = us[idx]
            ru = rank[u]
            ou, du = offsets[u], degree[u]
            for i in range(ou, ou + du):
                mark[pool[i]] = u
            for i in range(du):
                v = pool[ou + i]
                if rank[v] < ru:
                    ov, dv = offsets[v], degree[v]
                    common = 0
                    for j in range(ov, ov + dv):
                        common += mark[pool[j]] == u
                    t[ou + i] = common
                    t[ov + np.searchsorted(pool[ov : ov + dv], u)] = common
    return t


@njit(parallel=True, cache=True)
def _wedge_sums(offsets, degree, pool, t, rank, us, blocks, weighted):
    """(4-cycles at the vertices us, and with `weighted` the sum over their oriented wedges of
    (c(u, w) - 1) * (t(u, v) + t(v, w)), else 0): the module docstring's two sums.  us is dealt
    round-robin over `blocks` blocks (one per thread), each with a counter per vertex; us in random
    order spreads the hubs over them."""
    n = offsets.shape[0]
    cycles = np.zeros(blocks, dtype=np.int64)
    sums = np.zeros(blocks, dtype=np.int64)
    for b in prange(blocks):
        cnt = np.zeros(n, dtype=np.int32)
        for idx in range(b, us.shape[0], blocks):
            u = us[idx]
            ru = rank[u]
            ou, du = offsets[u], degree[u]
            for i in range(du):
                v = pool[ou + i]
                if rank[v] < ru:
                    ov = offsets[v]
                    for j in range(ov, ov + degree[v]):
                        if rank[pool[j]] < ru:
                            cnt[pool[j]] += 1
            for i in range(du if weighted else 0):
                v = pool[ou + i]
                if rank[v] < ru:
                    ov = offsets[v]
                    tuv = np.int64(t[ou + i])
                    for j in range(ov, ov + degree[v]):
                        if rank[pool[j]] < ru:
                            sums[b] += (cnt[pool[j]] - 1) * (tuv + t[j])
            for i in range(du):
                v = pool[ou + i]
                if rank[v] < ru:
                    ov = offsets[v]
                    for j in range(ov, ov + degree[v]):
                        w = pool[j]
                        if rank[w] < ru:
                            c = np.int64(cnt[w])
                            cycles[b] += c * (c - 1) // 2
                            cnt[w] = 0
    return cycles.sum(), sums.sum()


@njit(parallel=True, cache=True)
def _edge_pairs(offsets, degree, pool, t, rank, us):
    """Sum over the edges (u, v), u in us and v of lower rank, of C(t, 2)."""
    total = 0
    for idx in prange(us.shape[0]):
        u = us[idx]
        ou, ru = offsets[u], rank[u]
        for i in range(ou, ou + degree[u]):
            if rank[pool[i]] < ru:
                c = np.int64(t[i])
                total += c * (c - 1) // 2
    return total


class EdgeCounts:
    """The formulas (`diamonds`, `four_cycles`, `houses`) of one share of a count on one graph;
    the whole graph's per-edge triangles, which the house's read, are computed once."""

    def __init__(self, graph: GraphView, part: int = 0, parts: int = 1) -> None:
        self.graph = graph
        n = graph.offsets.shape[0]
        self._order = np.random.default_rng(0).permutation(n).astype(np.int64)
        self._mine = self._order[self._order % parts == part]
        self._rank = graph.degree.astype(np.int64) * n + np.arange(n, dtype=np.int64)
        self._t: np.ndarray | None = None

    @property
    def triangles(self) -> np.ndarray:
        """t per pool slot (`_slot_triangles`)."""
        if self._t is None:
            self._t = self._triangle_pass(self._order)
        return self._t

    def _triangle_pass(self, us: np.ndarray) -> np.ndarray:
        """`_slot_triangles` of the edges whose end of higher rank is in `us` (others 0)."""
        g = self.graph
        return _slot_triangles(g.offsets, g.degree, g.pool, self._rank, us, numba.get_num_threads())

    def _wedge_sums(self, weighted: bool) -> tuple[int, int]:
        g = self.graph
        t = self.triangles if weighted else np.zeros(1, dtype=np.int32)
        cycles, sums = _wedge_sums(g.offsets, g.degree, g.pool, t, self._rank, self._mine,
                                   numba.get_num_threads(), weighted)
        return int(cycles), int(sums)

    def diamonds(self) -> int:
        """Edge-induced diamonds of this share: C(t(e), 2) over its edges, those whose end of
        higher rank is in it.  Without the whole graph's t at hand (the house's), only theirs is
        counted: the triangle pass from this share's vertices, 1/parts of the whole pass."""
        g = self.graph
        t = self._t if self._t is not None else self._triangle_pass(self._mine)
        return int(_edge_pairs(g.offsets, g.degree, g.pool, t, self._rank, self._mine))

    def four_cycles(self) -> int:
        """Edge-induced 4-cycles of this share (those whose top vertex is in it)."""
        return self._wedge_sums(False)[0]

    def houses(self) -> int:
        """Edge-induced houses of this share: its wedges' t(e) * c4(e) share less four times its
        diamonds."""
        return self._wedge_sums(True)[1] - 4 * self.diamonds()


def formula_count(graph: GraphView, plans: PlanTable, part: int = 0, parts: int = 1) -> int | None:
    """The share part::parts of the whole-graph count of the table's pattern by formula (module
    docstring), or None when the pattern has none here."""
    if is_edge_induced_diamond(plans):
        return EdgeCounts(graph, part, parts).diamonds()
    if is_edge_induced_four_cycle(plans):
        return EdgeCounts(graph, part, parts).four_cycles()
    if is_edge_induced_house(plans):
        return EdgeCounts(graph, part, parts).houses()
    return None
