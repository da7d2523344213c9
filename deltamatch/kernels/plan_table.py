"""The plain-array forms in which graphs, batches and plans reach the engines.

Kernels import nothing else of the project: these containers are their whole input.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit


class GraphView(NamedTuple):
    """Adjacency rows with slack: row v is pool[offsets[v] : offsets[v] + degree[v]], sorted."""

    offsets: np.ndarray  # int64[n]
    degree: np.ndarray  # int32[n]
    pool: np.ndarray  # int32[capacity]


class BatchView(NamedTuple):
    """The changed pairs of a batch, looked up per vertex.

    slot[v] is -1 when v is in no changed pair; otherwise the partners of v are
    partner[ptr[s] : ptr[s+1]] (sorted) with their batch ranks in rank[...], s = slot[v].
    A task seeded at the pair of rank r may not use a changed pair of rank < r: that is
    how a match holding several changed pairs is found exactly once.

    `removals` > 0 makes it a joint count's batch (`joint`).
    """

    slot: np.ndarray  # int32[n]
    ptr: np.ndarray  # int64[slots + 1]
    partner: np.ndarray  # int32[2 * pairs]
    rank: np.ndarray  # int32[2 * pairs]
    removals: int = 0

    def joint(self, removals: int) -> BatchView:
        """This batch (D then I) for a joint count: both of its sides in one run on G_old ∪ I.
        A task of rank r < `removals` (a deletion) also may not use a pair of rank >= `removals`
        (an insertion, absent from G_old), so it finds G_old's matches and an insertion task
        G_new's (every deletion ranks below it), each as on its own graph.  Edge-induced only."""
        return self._replace(removals=removals)

    @classmethod
    def of_pairs(cls, pairs: np.ndarray, slot: np.ndarray) -> BatchView:
        """The view of `pairs` (pair i has rank i); fills `slot` (all -1 on entry) in place.
        Every vertex it gives a slot is some pair's partner: `slot[partner] = -1` undoes it."""
        pairs = np.ascontiguousarray(pairs, dtype=np.int32).reshape(-1, 2)
        a, b = pairs[:, 0].astype(np.int64), pairs[:, 1].astype(np.int64)
        keys = np.concatenate([(a << 32) | b, (b << 32) | a])
        ptr, partner, rank = _pair_view(keys, np.argsort(keys, kind="stable"), slot)
        return cls(slot, ptr, partner, rank)

    def pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(a, b, rank) of every changed pair once, a < b."""
        owner = np.empty(self.ptr.shape[0] - 1, dtype=np.int32)
        held = np.flatnonzero(self.slot >= 0)
        owner[self.slot[held]] = held
        src = np.repeat(owner, np.diff(self.ptr))
        once = src < self.partner
        return src[once], self.partner[once], self.rank[once]


@njit(cache=True)
def _pair_view(keys, order, slot):
    """(ptr, partner, rank) of `BatchView.of_pairs` from the keys src << 32 | dst of both
    directions of every pair (pair i's at i and n + i) and their stable sorting order; slot[v]
    = v's run, numbered in vertex order."""
    n = keys.shape[0] // 2
    partner = np.empty(2 * n, dtype=np.int32)
    rank = np.empty(2 * n, dtype=np.int32)
    ptr = np.empty(2 * n + 1, dtype=np.int64)
    runs = 0
    for t in range(2 * n):
        e = order[t]
        src = keys[e] >> 32
        if t == 0 or src != keys[order[t - 1]] >> 32:
            slot[src] = runs
            ptr[runs] = t
            runs += 1
        partner[t] = keys[e] & 0xFFFFFFFF
        rank[t] = e if e < n else e - n
    ptr[runs] = 2 * n
    return ptr[: runs + 1].copy(), partner, rank


# PlanTable.last_two: how a counting run may finish the last two levels (position k-2 and k-1).
LAST_EACH = 0  # per completed prefix: the last level's set size (or, listing, its members)
LAST_COLLAPSE = 1  # the last level's set does not depend on k-2: |C|*(|S| - clashes) - |C & S|
LAST_PAIRS = 2  # the last level is k-2's own set past a bound: |C|(|C|-1)/2 (|C|(|C|-1) unbounded)


class PlanTable(NamedTuple):
    """A pattern's plans in position space: position l holds pattern vertex order[p, l].

    conn[p, l, j] = 1 when positions l and j are adjacent in the pattern; cmp[p, l, j]
    is -1 when the vertex at l must be smaller than the one at j, +1 when larger.
    iso_masks (induced only) holds the sorted adjacency bitmasks of every labelling of
    the pattern, bit hi*(hi-1)/2+lo for the pair {lo, hi}.

    The plan analysis both engines execute (`scheduler.plans.analyze`):
    - dep[p, l]: the last position level l's candidate set depends on (its last pattern
      neighbour or symmetry bound).  A level with dep < l-1 is *hoisted*: its set is built
      once per prefix m[0..dep] and later visits only skip the vertices matched since.
    - base[p, l]: the earlier level whose candidate set level l's set is a subset of
      (same neighbours and compatible bounds before it), or -1.  Level l then filters that
      set against positions base .. dep only, instead of intersecting adjacency rows again.
    - last_two[p]: LAST_EACH, LAST_COLLAPSE or LAST_PAIRS (how counting ends a task).
    - seed_swap[p]: 1 (or -1) when a task (u, v) finds as many matches run as (v, u) and level 2
      is adjacent to seed position 1 (or 0) alone: a counting engine may then run it with the
      lower-degree endpoint there, so that level 2 iterates the shorter row; 0 otherwise.
    """

    k: int
    induced: bool
    order: np.ndarray  # int32[plans, k]
    conn: np.ndarray  # int8[plans, k, k]
    cmp: np.ndarray  # int8[plans, k, k]
    seed_is_edge: np.ndarray  # bool[plans]
    automorphisms: np.ndarray  # int32[|Aut|, k]
    iso_masks: np.ndarray  # int64[labellings]
    dep: np.ndarray  # int8[plans, k]
    base: np.ndarray  # int8[plans, k]
    last_two: np.ndarray  # int8[plans]
    seed_swap: np.ndarray  # int8[plans]


@njit(cache=True)
def reverses_seed(side: int, first_degree: float, second_degree: float) -> bool:
    """Whether a task of a plan with `PlanTable.seed_swap` `side`, whose seed endpoints as given
    have these degrees, runs reversed: side 1 puts the lower degree at position 1, -1 at position
    0 (equal degrees: reversed for -1 only).  match.cu's swap_seeds applies the same rule."""
    return side != 0 and (side == 1) == (first_degree < second_degree)


class TaskList(NamedTuple):
    """Tasks: seed pair (u, v) of batch rank `rank` (-1 when static) run with plan `plan`."""

    u: np.ndarray  # int32[T]
    v: np.ndarray  # int32[T]
    rank: np.ndarray  # int32[T]
    plan: np.ndarray  # int32[T]

    def take(self, index: np.ndarray) -> TaskList:
        return TaskList(self.u[index], self.v[index], self.rank[index], self.plan[index])

    def followed_by(self, other: TaskList) -> TaskList:
        """These tasks, then `other`'s (a joint count's removal side, then its insertion side)."""
        return TaskList(*(np.concatenate(pair) for pair in zip(self, other, strict=True)))

    @classmethod
    def static(cls, edges: np.ndarray) -> TaskList:
        """Both orientations of every edge (u, v), plan 0, no batch rank: a whole-graph count."""
        u = np.concatenate([edges[:, 0], edges[:, 1]]).astype(np.int32)
        v = np.concatenate([edges[:, 1], edges[:, 0]]).astype(np.int32)
        n = u.shape[0]
        return cls(u, v, np.full(n, -1, np.int32), np.zeros(n, np.int32))

    @property
    def size(self) -> int:
        return int(self.u.shape[0])


def is_edge_induced_diamond(plans: PlanTable) -> bool:
    """Whether the table's pattern is the edge-induced diamond: four vertices and five edges (K4
    less an edge is the only such graph), inducedness off."""
    return plans.k == 4 and not plans.induced and int(plans.conn[0].sum()) == 10


def is_edge_induced_four_cycle(plans: PlanTable) -> bool:
    """Whether the table's pattern is the edge-induced 4-cycle: four vertices, each adjacent to
    exactly two others, inducedness off."""
    return plans.k == 4 and not plans.induced and bool(np.all(plans.conn[0].sum(axis=1) == 2))


def is_edge_induced_house(plans: PlanTable) -> bool:
    """Whether the table's pattern is the edge-induced house: five vertices and six edges, three of
    degree 2 and two adjacent ones of degree 3 (the only other graph with those degrees, K2,3, has
    its two of degree 3 apart), inducedness off."""
    if plans.k != 5 or plans.induced:
        return False
    conn = plans.conn[0]
    degrees = conn.sum(axis=1)
    top = np.flatnonzero(degrees == 3)
    return sorted(degrees.tolist()) == [2, 2, 2, 3, 3] and bool(conn[top[0], top[1]])


def has_count_formula(plans: PlanTable) -> bool:
    """Whether both engines count the table's pattern over a whole graph by a formula rather than
    by matching (`cpu_formulas.formula_count`, `cuda_engine.static_count`): the edge-induced
    diamond, 4-cycle and house."""
    return is_edge_induced_diamond(plans) or is_edge_induced_four_cycle(plans) or is_edge_induced_house(plans)


def memo_plans(plans: PlanTable) -> np.ndarray:
    """Per plan (int8): 1 when counting may size its last level once per task and level-(k-2)
    vertex (the CPU engine's `_memo_count`; match.cu's `match_memo`), else 0.

    That is an edge-induced plan with k >= 5 ending LAST_EACH whose last level draws from
    adjacency rows (no base set), is adjacent to position k-2 with no bound on it, and has its
    other neighbours and bounds among the seed positions 0, 1: its set is then a function of
    m[k-2] for the whole task, while k-2 runs for several prefixes m[2 .. k-3].
    """
    memos = np.zeros(plans.order.shape[0], dtype=np.int8)
    k = plans.k
    if plans.induced or k < 5:
        return memos
    last = k - 1
    for p in range(memos.shape[0]):
        conn, cmp = plans.conn[p, last], plans.cmp[p, last]
        memos[p] = (plans.last_two[p] == LAST_EACH and plans.base[p, last] < 0 and conn[k - 2] == 1
                    and cmp[k - 2] == 0 and not conn[2:k - 2].any() and not cmp[2:k - 2].any())
    return memos


KEPT_LAST_SIZES = (4, 5)  # pattern sizes whose plans read last levels from kept triangles (kept_last_levels)


def kept_last_levels(plans: PlanTable) -> np.ndarray:
    """Per plan, the position j when its last level is counted from kept triangles, else -1:
    edge-induced, `LAST_EACH`, the last position adjacent to exactly j and k-2, which are adjacent
    themselves (so the level is the common neighbourhood of a graph edge, t of that edge), and no
    symmetry bound on the last position.  Only at the sizes of KEPT_LAST_SIZES: the diamond's
    outer-edge plans ran 1.7-2.0x faster so (session 11); the house's floor-edge plan (P1's too)
    took 9.6 ms against about 700 ms on RMAT-18, and the house's batch 3.22x less time on RMAT-20
    (session 20; 0.81x and 0.75x in session 12, before the memo and its sharing; docs/GPU.md)."""
    k = plans.k
    out = np.full(plans.order.shape[0], -1, dtype=np.int32)
    if plans.induced or k not in KEPT_LAST_SIZES:
        return out
    last, before = k - 1, k - 2
    for p in range(plans.order.shape[0]):
        neighbours = np.flatnonzero(plans.conn[p, last, :last])
        bounded = plans.cmp[p, last].any() or plans.cmp[p, :, last].any()
        if (int(plans.last_two[p]) != LAST_EACH or bounded or neighbours.shape[0] != 2
                or neighbours[1] != before or plans.conn[p, before, neighbours[0]] != 1):
            continue
        out[p] = neighbours[0]
    return out


def reads_kept_triangles(plans: PlanTable) -> bool:
    """Whether a graph that keeps its edges' triangles serves this pattern: the edge-induced
    diamond (counted whole from them) or a plan with a last level they count."""
    return is_edge_induced_diamond(plans) or bool((kept_last_levels(plans) >= 0).any())


def empty_batch(num_vertices: int) -> BatchView:
    """A batch with no changed pairs (static counting)."""
    return BatchView(
        np.full(num_vertices, -1, dtype=np.int32),
        np.zeros(1, dtype=np.int64),
        np.zeros(0, dtype=np.int32),
        np.zeros(0, dtype=np.int32),
    )
