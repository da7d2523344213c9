"""Batch tasks: changed pair x plan, seed kind per side, ranks = index in the changed list."""

from __future__ import annotations

import numpy as np

from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.scheduler.plans import compile_plans, shared_plans
from deltamatch.scheduler.tasks import NEW, OLD, batch_tasks

CHANGED = np.array([[0, 1], [2, 3], [4, 5]], dtype=np.int32)  # one deletion, then two insertions


def test_edge_induced_sides_run_only_their_own_updates():
    table = compile_plans(parse_pattern("diamond"), shared_plans(parse_pattern("diamond")))
    old = batch_tasks(table, CHANGED, 1, OLD)
    new = batch_tasks(table, CHANGED, 1, NEW)
    plans = table.order.shape[0]
    assert old.size == plans and set(old.rank.tolist()) == {0}
    assert new.size == 2 * plans and set(new.rank.tolist()) == {1, 2}
    assert sorted(zip(new.u.tolist(), new.v.tolist(), strict=True)) == sorted([(2, 3), (4, 5)] * plans)


def test_induced_sides_seed_non_edges_with_non_edge_plans():
    p = parse_pattern("4-path", induced=True)
    table = compile_plans(p, shared_plans(p))
    edge_plans = int(table.seed_is_edge.sum())
    non_edge_plans = table.order.shape[0] - edge_plans
    old = batch_tasks(table, CHANGED, 1, OLD)
    assert old.size == 1 * edge_plans + 2 * non_edge_plans
    for rank, plan in zip(old.rank.tolist(), old.plan.tolist(), strict=True):
        assert table.seed_is_edge[plan] == (rank < 1)


def test_empty_batch_has_no_tasks():
    table = compile_plans(parse_pattern("triangle"), shared_plans(parse_pattern("triangle")))
    assert batch_tasks(table, np.zeros((0, 2), np.int32), 0, NEW).size == 0


def test_tasks_list_plan_by_plan_with_pairs_in_rank_order():
    """The order the engines and the listing cut rely on: the plans in turn, each over the
    pairs of its seed kind in rank order (the per-plan numpy form this replaced)."""
    p = parse_pattern("4-path", induced=True)
    table = compile_plans(p, shared_plans(p))
    changed = np.random.default_rng(7).integers(0, 50, size=(40, 2)).astype(np.int32)
    for side in (OLD, NEW):
        got = batch_tasks(table, changed, 15, side)
        ranks = np.arange(40)
        is_edge = ranks < 15 if side == OLD else ranks >= 15
        want = [(int(changed[r, 0]), int(changed[r, 1]), int(r), plan)
                for plan in range(table.order.shape[0]) for r in ranks[is_edge == table.seed_is_edge[plan]]]
        rows = zip(got.u.tolist(), got.v.tolist(), got.rank.tolist(), got.plan.tolist(), strict=True)
        assert list(rows) == want
        assert {a.dtype for a in got} == {np.dtype(np.int32)}
