from dataclasses import replace

import numpy as np
import pytest

from deltamatch.kernels.plan_table import PlanTable, TaskList
from deltamatch.scheduler.cost import Calibrator, common_bound, g2miner_cost, plan_shape, predict_task_cost
from deltamatch.scheduler.patterns import BUILTIN_PATTERNS, parse_pattern
from deltamatch.scheduler.plans import analyze, compile_plans, per_edge_plans, shared_plans
from deltamatch.workers.features import SideFeatures

PAIRS = np.array([[0, 1]], dtype=np.int32)


def _feats(du=10, dv=4, common=3, n=100, davg=5.0, dnbr=7.0):
    arr = lambda x: np.array([x], dtype=np.int32)  # noqa: E731
    return SideFeatures(arr(du), arr(dv), arr(common), n, davg, dnbr)


def _task(u=0, v=1, plan=0):
    return TaskList(*(np.array([x], dtype=np.int32) for x in (u, v, 0, plan)))


def _shared(name):
    p = parse_pattern(name)
    return plan_shape(compile_plans(p, shared_plans(p)))


def test_triangle_costs_one_scan_of_the_smaller_row():
    # 1 + min(du, dv) * (1 + one extra adjacency test)
    cost = predict_task_cost(_task(), _shared("triangle"), PAIRS, _feats())
    assert cost == pytest.approx([1 + 4 * 2])


def test_four_clique_uses_eq2_and_the_symmetric_order():
    shape = _shared("4-clique")
    assert shape.adj0[0, 3] and shape.adj1[0, 3] and shape.rest[0, 3] == 1
    assert shape.survive[0, 3] == pytest.approx(0.5)  # f(2) < f(3) breaks the seed's stabilizer
    # 1 + min(du,dv)*2 + |N(u)∩N(v)| * min(du,dv,davg) * 1/2 * 3
    cost = predict_task_cost(_task(), shape, PAIRS, _feats())
    assert cost == pytest.approx([1 + 8 + 3 * 4 * 0.5 * 3])


def test_four_cycle_uses_eq1_for_one_adjacent_seed():
    shape = _shared("4-cycle")
    assert not shape.adj0[0, 2] and shape.adj1[0, 2] and shape.rest[0, 2] == 0
    assert shape.adj0[0, 3] and not shape.adj1[0, 3] and shape.rest[0, 3] == 1
    # position 2 scans dv; Eq. 1: C2 = N * (dv/N) = dv; position 3 scans min(du, davg), one test.
    cost = predict_task_cost(_task(), shape, PAIRS, _feats())
    assert cost == pytest.approx([1 + 4 + 4 * 5 * 2])


def test_eq1_with_no_adjacent_seed_uses_the_average_degree():
    p = parse_pattern("0-1,1-2,2-3,3-4")
    plans = compile_plans(p, shared_plans(p))
    shape = plan_shape(plans)
    plan = int(np.flatnonzero((plans.order[:, 0] == 0) & (plans.order[:, 1] == 1))[0])
    assert list(plans.order[plan]) == [0, 1, 2, 3, 4]
    # pos 2: scan dv, C2 = dv; pos 3: scan davg, C3 = N (davg/N) = davg; pos 4: scan davg.
    cost = predict_task_cost(_task(plan=plan), shape, PAIRS, _feats())
    assert cost == pytest.approx([1 + 4 + 4 * 5 + 4 * 5 * 5])


def test_failed_seed_constraint_costs_one():
    p = parse_pattern("triangle")
    plans = compile_plans(p, per_edge_plans(p))
    shape = plan_shape(plans)
    assert shape.seed_cmp[0] == 1  # position 1 must hold the larger id
    pairs = np.array([[0, 1], [1, 0]], dtype=np.int32)
    tasks = TaskList(*(np.array(x, dtype=np.int32) for x in ([0, 1], [1, 0], [0, 1], [0, 0])))
    f = SideFeatures(np.array([10, 10], np.int32), np.array([4, 4], np.int32),
                     np.array([3, 3], np.int32), 100, 5.0)
    # position 2 must exceed both seeds: survives with probability 2!/3! = 1/3
    assert predict_task_cost(tasks, shape, pairs, f) == pytest.approx([1 + 4 * 2 / 3, 1])


def test_survival_probability_counts_lower_and_upper_bounds():
    k = 4
    cmp = np.zeros((1, k, k), dtype=np.int8)
    cmp[0, 3, :3] = [1, 1, -1]  # above positions 0 and 1, below position 2
    conn = np.ones((1, k, k), dtype=np.int8)
    dep, base, last_two = analyze(conn[0], cmp[0], induced=False, hoist=True)
    table = PlanTable(k, False, np.arange(k, dtype=np.int32)[None], conn, cmp, np.ones(1, bool),
                      np.arange(k, dtype=np.int32)[None], np.zeros(0, np.int64), dep[None], base[None],
                      np.array([last_two], np.int8), np.zeros(1, np.int8))
    assert plan_shape(table).survive[0, 3] == pytest.approx(2 * 1 / 24)


def test_reversed_task_swaps_endpoint_degrees():
    f = _feats(du=10, dv=4)
    pairs = np.array([[7, 9]], dtype=np.int32)
    forward = TaskList(*(np.array([x], np.int32) for x in (7, 9, 0, 0)))
    backward = TaskList(*(np.array([x], np.int32) for x in (9, 7, 0, 0)))
    shape = replace(_shared("4-cycle"), seed_swap=np.zeros(1, np.int8))  # as if it might not reverse
    assert predict_task_cost(forward, shape, pairs, f) == pytest.approx([1 + 4 + 4 * 5 * 2])
    assert predict_task_cost(backward, shape, pairs, f) == pytest.approx([1 + 10 + 10 * 4 * 2])
    assert g2miner_cost(backward, pairs, f) == pytest.approx([4])


def test_a_reversible_seed_is_predicted_as_the_engines_run_it():
    """The shared 4-cycle plan runs (9, 7) as (7, 9): level 2 iterates the shorter row either way."""
    f = _feats(du=10, dv=4)
    pairs = np.array([[7, 9]], dtype=np.int32)
    forward = TaskList(*(np.array([x], np.int32) for x in (7, 9, 0, 0)))
    backward = TaskList(*(np.array([x], np.int32) for x in (9, 7, 0, 0)))
    shape = _shared("4-cycle")
    assert shape.seed_swap.tolist() == [1]
    want = [1 + 4 + 4 * 5 * 2]
    assert predict_task_cost(forward, shape, pairs, f) == pytest.approx(want)
    assert predict_task_cost(backward, shape, pairs, f) == pytest.approx(want)


def test_task_outside_the_batch_is_rejected():
    with pytest.raises(ValueError, match="rank"):
        predict_task_cost(TaskList.static(np.array([[0, 1]])), _shared("triangle"), PAIRS, _feats())


def test_calibrator_recovers_per_plan_scales():
    rng = np.random.default_rng(0)
    cal = Calibrator(window=400)
    assert not cal.fitted(1)
    truth = np.array([2e-6, 8e-6])
    for _ in range(50):
        x = rng.uniform(100, 1000, size=(4, 2))
        n = rng.integers(10, 100, size=4).astype(float)
        cal.observe(1, x, n, x @ truth + 1e-7 * n)
    scale, overhead = cal.scales(1)
    assert scale == pytest.approx(truth, rel=0.1)
    assert 0 <= overhead < 1e-6
    tasks = TaskList(*(np.array(x, np.int32) for x in ([0, 0], [1, 1], [0, 0], [0, 1])))
    sec = cal.seconds(1, tasks, np.array([10.0, 10.0]))
    assert sec[1] > 3 * sec[0]


def test_calibrator_rejects_mismatched_rows():
    with pytest.raises(ValueError, match="observe"):
        Calibrator().observe(1, np.ones((4, 2)), np.ones(3), np.ones(4))


def test_only_patterns_with_eq2_before_the_last_position_need_common_neighbours():
    assert not _shared("triangle").needs_common
    assert not _shared("4-cycle").needs_common
    assert _shared("4-clique").needs_common


def test_neighbour_scan_replaces_the_average_degree_in_scans_only():
    shape = _shared("4-cycle")
    # position 3 scans min(du, Σd²/Σd = 7) instead of min(du, 5); Eq. 1 sizes are unchanged
    cost = predict_task_cost(_task(), shape, PAIRS, _feats(), neighbour_scan=True)
    assert cost == pytest.approx([1 + 4 + 4 * 7 * 2])


@pytest.mark.parametrize("name", sorted(BUILTIN_PATTERNS))
def test_the_common_neighbour_bound_never_predicts_less(name: str):
    """Each task's cost with every |N(u) ∩ N(v)| at min(d_u, d_v) is at least its cost with the
    true counts, so a batch routed local on the bound would be routed local on the counts."""
    rng = np.random.default_rng(5)
    pairs = rng.integers(0, 50, size=(40, 2)).astype(np.int32)
    deg = rng.integers(1, 60, size=(2, 40)).astype(np.int32)
    feats = SideFeatures(deg[0], deg[1], (np.minimum(deg[0], deg[1]) * rng.random(40)).astype(np.int32),
                         500, 6.0, 9.0)
    plans = compile_plans(parse_pattern(name), shared_plans(parse_pattern(name)))
    shape = plan_shape(plans)
    tasks = TaskList(pairs[:, 0].copy(), pairs[:, 1].copy(), np.arange(40, dtype=np.int32),
                     rng.integers(0, plans.order.shape[0], size=40).astype(np.int32))
    exact = predict_task_cost(tasks, shape, pairs, feats, neighbour_scan=True)
    bound = predict_task_cost(tasks, shape, pairs, common_bound(feats), neighbour_scan=True)
    assert np.all(bound >= exact)
    assert not shape.needs_common or np.any(bound > exact)
