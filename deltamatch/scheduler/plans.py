"""Execution plans: a matching order plus symmetric-order constraints per seed pair.

A task matches one data pair (u, v) of a batch (or of the graph, when counting
statically) onto a plan's seed pair (order[0], order[1]) and extends the match one
pattern vertex at a time.  Plans reach the kernels as plain arrays (`PlanTable`),
expressed in *position* space: position l holds pattern vertex order[l].

Shared plans (PGMiner): one plan per isomorphic edge class, whose constraints only
break the stabilizer of the seed pair.  Per-edge plans (the ablation baseline): one
plan per oriented seed pair, each carrying the full automorphism group's constraints.
Static plans: one oriented pattern edge with the full group's constraints, tried on
both orientations of every data edge.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from deltamatch.kernels.plan_table import LAST_COLLAPSE, LAST_EACH, LAST_PAIRS, PlanTable
from deltamatch.scheduler.patterns import Pattern


@dataclass(frozen=True)
class Plan:
    """One execution plan: seed pair, matching order and `f(a) < f(b)` constraints."""

    seed: tuple[int, int]
    order: tuple[int, ...]
    constraints: tuple[tuple[int, int], ...]
    seed_is_edge: bool
    hoist: bool = True


def matching_order(pattern: Pattern, seed: tuple[int, int], hoist: bool = True) -> tuple[int, ...]:
    """Seed pair first, then greedily the vertex with most matched neighbours.

    Ties go to the higher pattern degree, then the lower id: dense prefixes shrink
    candidate sets soonest (the usual GraphPi/G2Miner heuristic).  With `hoist`, sinks
    (vertices no later vertex is adjacent to) then move to the end, in order: nothing
    else depends on them, so their candidate sets no longer multiply the deeper levels'
    work and each is built once per prefix of its neighbours (loop-invariant code motion,
    as in AutoMine/GraphZero).
    """
    adj = pattern.adjacency
    order = list(seed)
    rest = [x for x in range(pattern.k) if x not in order]
    while rest:
        best = max(rest, key=lambda x: (int(adj[x, order].sum()), int(adj[x].sum()), -x))
        if not adj[best, order].any():
            raise AssertionError("a connected pattern always has a matched neighbour")
        order.append(best)
        rest.remove(best)
    if not hoist:
        return tuple(order)
    sinks = [x for i, x in enumerate(order) if i >= 2 and not adj[x, order[i + 1:]].any()]
    return tuple([x for x in order if x not in sinks] + sinks)


def symmetry_constraints(group: np.ndarray, base: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """Grochow-Kellis symmetry breaking of `group` along `base`.

    For each base vertex x: f(x) < f(y) for every other y in x's orbit under the
    current stabilizer, then stabilize x.  Exactly one member of each orbit of
    embeddings under `group` satisfies all constraints.
    """
    constraints = []
    for x in base:
        for y in sorted({int(s[x]) for s in group} - {x}):
            constraints.append((x, y))
        group = group[group[:, x] == x]
    return tuple(constraints)


def shared_plans(pattern: Pattern, hoist: bool = True) -> list[Plan]:
    """One plan per isomorphic edge class; constraints break the seed's stabilizer."""
    plans = []
    aut = pattern.automorphisms
    for orbit in pattern.edge_classes:
        a, b = orbit[0]
        stabilizer = aut[(aut[:, a] == a) & (aut[:, b] == b)]
        order = matching_order(pattern, (a, b), hoist)
        plans.append(Plan((a, b), order, symmetry_constraints(stabilizer, order),
                          bool(pattern.adjacency[a, b]), hoist))
    return plans


def _full_group_constraints(pattern: Pattern) -> tuple[tuple[int, int], ...]:
    """Symmetry breaking of the whole automorphism group, along the vertex ids."""
    return symmetry_constraints(pattern.automorphisms, tuple(range(pattern.k)))


def per_edge_plans(pattern: Pattern, hoist: bool = True) -> list[Plan]:
    """One plan per oriented seed pair, each with the full group's constraints."""
    full = _full_group_constraints(pattern)
    return [Plan((a, b), matching_order(pattern, (a, b), hoist), full, bool(pattern.adjacency[a, b]), hoist)
            for a, b in pattern.oriented_pairs]


def static_plan(pattern: Pattern, hoist: bool = True) -> Plan:
    """The plan for a whole-graph count: seeded at the edge that starts the densest order."""
    seed = max(pattern.edges, key=lambda e: (int(pattern.adjacency[list(e)].sum()), -e[0], -e[1]))
    return Plan(seed, matching_order(pattern, seed, hoist), _full_group_constraints(pattern), True, hoist)


def isomorphic_masks(pattern: Pattern) -> np.ndarray:
    """Sorted adjacency bitmasks of every labelling of the pattern (for induced checks).

    Bit `pair_bit(p, q)` of a mask is set when positions p and q are adjacent.
    """
    k = pattern.k
    masks = set()
    for perm in itertools.permutations(range(k)):
        mask = 0
        for u, v in pattern.edges:
            mask |= 1 << pair_bit(perm[u], perm[v])
        masks.add(mask)
    return np.array(sorted(masks), dtype=np.int64)


def pair_bit(p: int, q: int) -> int:
    """Bit index of the unordered pair {p, q} (p != q) among k <= 8 positions."""
    lo, hi = min(p, q), max(p, q)
    return hi * (hi - 1) // 2 + lo


def candidate_deps(conn: np.ndarray, cmp: np.ndarray, hoist: bool) -> np.ndarray:
    """dep[l] of one plan (position space): the last position level l's candidates depend on.

    That is l's last pattern neighbour or symmetry bound for l >= 3 when `hoist`; l-1
    otherwise (and always for an induced pattern, whose levels depend on every earlier
    position: pass hoist=False).  dep[0] = -1, dep[1] = 0.
    """
    k = conn.shape[0]
    dep = np.arange(-1, k - 1, dtype=np.int8)
    if hoist:
        for lv in range(3, k):
            dep[lv] = np.flatnonzero(conn[lv, :lv] | cmp[lv, :lv]).max()
    return dep


def reused_level(conn: np.ndarray, cmp: np.ndarray, dep: np.ndarray, lv: int) -> int:
    """The latest level i (2 <= i < l) whose candidate set contains level l's, or -1.

    Level i qualifies when it is not hoisted (its set excludes every vertex at 0 .. i-1),
    its set is built by the time l's is (i <= dep[l]), l has exactly i's pattern
    neighbours before i (so i's adjacency and, induced, non-adjacency checks are l's), and
    every bound of i is one of l's (cmp[i, j] in {0, cmp[l, j]} for j < i).
    """
    for i in range(min(lv - 1, int(dep[lv])), 1, -1):
        if dep[i] != i - 1:
            continue
        same_nbrs = np.array_equal(conn[lv, :i], conn[i, :i])
        bounds = cmp[i, :i]
        if same_nbrs and bool(np.all((bounds == 0) | (bounds == cmp[lv, :i]))):
            return i
    return -1


def last_two_levels(conn: np.ndarray, cmp: np.ndarray, dep: np.ndarray, base: np.ndarray,
                    induced: bool) -> int:
    """How counting may finish a task of one plan (see `PlanTable.last_two`).

    LAST_COLLAPSE: the last level does not depend on position k-2 (inclusion-exclusion).
    LAST_PAIRS: the last level is k-2's set (base), not adjacent to k-2, edge-induced, with
    exactly k-2's bounds before it, so each member of k-2's set C pairs with the members on
    one side of it (a bound between them) or all others: C(|C|, 2) or |C|(|C|-1) in all.
    """
    k = conn.shape[0]
    if k < 4:
        return LAST_EACH
    if dep[k - 1] < k - 2:
        return LAST_COLLAPSE
    if (base[k - 1] == k - 2 and conn[k - 1, k - 2] == 0 and not induced
            and np.array_equal(cmp[k - 1, :k - 2], cmp[k - 2, :k - 2])):
        return LAST_PAIRS
    return LAST_EACH


def seed_swap(pattern: Pattern, order: np.ndarray, conn: np.ndarray, cmp: np.ndarray) -> int:
    """`PlanTable.seed_swap` of one plan (position space): 1 or -1 when a task may run its seed
    (u, v) as (v, u), with the lower-degree endpoint at position 1 or 0, whichever alone is level
    2's pattern neighbour; else 0.

    A plan may reverse its seed when an automorphism s swaps its seed vertices a, b and maps its
    constraints onto themselves: f -> f o s then pairs the embeddings a task finds from (u, v) one
    to one with those from (v, u), both matching the same subgraph, so every task's count is
    unchanged.
    """
    if pattern.k < 3:
        return 0
    a, b = int(order[0]), int(order[1])
    side = int(conn[2, 1]) - int(conn[2, 0])
    aut = pattern.automorphisms
    swapping = aut[(aut[:, a] == b) & (aut[:, b] == a)]
    if side == 0 or swapping.shape[0] == 0:
        return 0
    bound = np.zeros((pattern.k, pattern.k), dtype=np.int8)
    bound[np.ix_(order, order)] = cmp
    kept = (bound[swapping[:, :, None], swapping[:, None, :]] == bound).all(axis=(1, 2)).any()
    return side if kept else 0


def analyze(conn: np.ndarray, cmp: np.ndarray, induced: bool,
            hoist: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """(dep, base, last_two) of one plan: the set operations of `PlanTable`'s docstring."""
    dep = candidate_deps(conn, cmp, hoist and not induced)
    base = np.full(conn.shape[0], -1, dtype=np.int8)
    for lv in range(3, conn.shape[0]):
        base[lv] = reused_level(conn, cmp, dep, lv)
    return dep, base, last_two_levels(conn, cmp, dep, base, induced)


def compile_plans(pattern: Pattern, plans: list[Plan]) -> PlanTable:
    """Lower plans to the kernels' arrays (position space, see `PlanTable`), analyzed."""
    k = pattern.k
    n = len(plans)
    order = np.zeros((n, k), dtype=np.int32)
    conn = np.zeros((n, k, k), dtype=np.int8)
    cmp = np.zeros((n, k, k), dtype=np.int8)
    seed_is_edge = np.zeros(n, dtype=np.bool_)
    swap = np.zeros(n, dtype=np.int8)
    dep = np.zeros((n, k), dtype=np.int8)
    base = np.zeros((n, k), dtype=np.int8)
    last_two = np.zeros(n, dtype=np.int8)
    for p, plan in enumerate(plans):
        pos = {x: i for i, x in enumerate(plan.order)}
        order[p] = plan.order
        conn[p] = pattern.adjacency[np.ix_(plan.order, plan.order)]
        for x, y in plan.constraints:
            cmp[p, pos[x], pos[y]] = -1
            cmp[p, pos[y], pos[x]] = 1
        seed_is_edge[p] = plan.seed_is_edge
        swap[p] = seed_swap(pattern, order[p], conn[p], cmp[p])
        dep[p], base[p], last_two[p] = analyze(conn[p], cmp[p], pattern.induced, plan.hoist)
    return PlanTable(
        k=k,
        induced=pattern.induced,
        order=order,
        conn=conn,
        cmp=cmp,
        seed_is_edge=seed_is_edge,
        automorphisms=pattern.automorphisms.astype(np.int32),
        iso_masks=isomorphic_masks(pattern) if pattern.induced else np.zeros(0, dtype=np.int64),
        dep=dep,
        base=base,
        last_two=last_two,
        seed_swap=swap,
    )
