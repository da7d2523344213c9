import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deltamatch.kernels.plan_table import TaskList
from deltamatch.kernels.reference import reference_matches
from deltamatch.scheduler.allocation import POLICIES, allocate, greedy, split
from deltamatch.scheduler.core import SchedulerCore, WorkerPool
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.workers.replica import GraphReplica


def _tasks(n):
    z = np.zeros(n, dtype=np.int32)
    return TaskList(np.arange(n, dtype=np.int32), np.arange(n, dtype=np.int32) + 1, z, z)


def _lists(allocation):
    return [a.tolist() for a in allocation.assignment]


def test_greedy_gives_the_costliest_task_to_the_least_loaded_worker():
    # 5 -> w0; 4 -> w1; 3 (index 2) -> w1 (4 < 5); 3 (index 3) -> w0 (5 < 7); 2 -> w1 (7 < 8)
    a = greedy(np.array([5.0, 4, 3, 3, 2]), 2)
    assert _lists(a) == [[0, 3], [1, 2, 4]]
    assert a.predicted.tolist() == [8.0, 9.0]


def test_greedy_breaks_load_ties_by_task_count_then_worker_id():
    a = greedy(np.array([2.0, 1, 1, 0, 0, 0]), 3)
    # 2 -> w0; 1 -> w1; 1 -> w2; zeros: w1 and w2 tie on load and count, w1 first; then w2; then w1
    assert _lists(a) == [[0], [1, 3, 5], [2, 4]]


def test_greedy_spreads_zero_cost_tasks_evenly():
    sizes = [a.size for a in greedy(np.zeros(10), 4).assignment]
    assert sizes == [3, 3, 2, 2]


def test_greedy_starts_from_initial_loads():
    a = greedy(np.array([3.0, 3.0]), 2, initial=np.array([10.0, 0.0]))
    assert _lists(a) == [[], [0, 1]]
    assert a.predicted.tolist() == [10.0, 6.0]


def test_greedy_rejects_bad_costs():
    with pytest.raises(ValueError, match="cost"):
        greedy(np.array([1.0, -1.0]), 2)
    with pytest.raises(ValueError, match="cost"):
        greedy(np.array([1.0, np.nan]), 2)
    with pytest.raises(ValueError, match="initial"):
        greedy(np.ones(3), 2, initial=np.zeros(3))


def test_round_robin_deals_blocks():
    a = allocate(_tasks(10), 2, "round-robin", block=2)
    assert _lists(a) == [[0, 1, 4, 5, 8, 9], [2, 3, 6, 7]]


def test_one_worker_gets_every_task_in_order_under_the_count_policies():
    cost = np.arange(7, dtype=np.float64)
    for policy in ("even", "round-robin"):
        a = allocate(_tasks(7), 1, policy, cost=cost, block=3)
        assert _lists(a) == [list(range(7))] and a.predicted.tolist() == [21.0]
        assert allocate(_tasks(7), 1, policy).predicted.tolist() == [7.0]
    with pytest.raises(ValueError, match="block"):
        allocate(_tasks(7), 1, "round-robin", block=0)


def test_even_split_is_contiguous():
    assert [a.size for a in allocate(_tasks(10), 4, "even").assignment] == [2, 3, 2, 3]


def test_cost_policies_need_one_cost_per_task():
    with pytest.raises(ValueError, match="cost"):
        allocate(_tasks(3), 2, "pgminer")
    with pytest.raises(ValueError, match="cost"):
        allocate(_tasks(3), 2, "g2miner", np.ones(2))


def test_unknown_policy_is_named():
    with pytest.raises(ValueError, match="'lottery'"):
        allocate(_tasks(3), 2, "lottery")
    with pytest.raises(ValueError, match="'lottery'"):
        SchedulerCore(WorkerPool([GraphReplica("cpu")]), policy="lottery")


def test_split_returns_each_groups_local_indices():
    a = greedy(np.array([1.0, 5, 2, 4, 3]), 2)  # w0 gets 1, 2, 0; w1 gets 3, 4
    parts = split(a, [2, 3])
    assert [p.tolist() for p in parts[0]] == [[1, 0], []]
    assert [p.tolist() for p in parts[1]] == [[0], [1, 2]]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1e6), max_size=200), st.integers(1, 9), st.sampled_from(POLICIES))
def test_every_task_is_assigned_exactly_once(costs, workers, policy):
    cost = np.array(costs, dtype=np.float64)
    a = allocate(_tasks(cost.size), workers, policy, cost)
    assert len(a.assignment) == workers
    got = np.sort(np.concatenate(a.assignment)) if cost.size else np.zeros(0)
    assert got.tolist() == list(range(cost.size))
    assert a.predicted.sum() == pytest.approx(cost.sum())


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0, 1e3), min_size=1, max_size=60), st.integers(2, 6))
def test_greedy_is_within_grahams_bound(costs, workers):
    cost = np.array(costs)
    a = greedy(cost, workers)
    # the last task put on the busiest worker found it at most at the average load
    assert a.predicted.max() <= cost.sum() / workers + cost.max() + 1e-9


def _run(policy, edges, batches, patterns):
    core = SchedulerCore(WorkerPool([GraphReplica("cpu") for _ in range(3)]), policy=policy)
    pids = [core.register(parse_pattern(name, induced=ind)).id for name, ind in patterns]
    core.load(edges)
    deltas = []
    for ins, dele in batches:
        out = core.apply(ins, dele)
        deltas.append({pid: (out.deltas[pid].added.tolist(), out.deltas[pid].removed.tolist(),
                             out.deltas[pid].total) for pid in pids})
    return deltas, core


def test_results_do_not_depend_on_the_policy():
    rng = np.random.default_rng(5)
    pairs = rng.integers(0, 40, size=(300, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    edges = pairs[:120]
    batches = [(pairs[120 + 30 * b:150 + 30 * b], pairs[20 * b:20 * b + 15]) for b in range(4)]
    patterns = [("triangle", False), ("4-cycle", False), ("diamond", True), ("house", False)]
    runs = {policy: _run(policy, edges, batches, patterns) for policy in POLICIES}
    first = runs["even"][0]
    assert all(len(rows) < 10_000 for d in first for rows, _, _ in d.values())  # nothing truncated
    for policy in POLICIES:
        assert runs[policy][0] == first, policy
    graph = {tuple(sorted(map(int, e))) for e in edges}
    for ins, dele in batches:
        graph -= {tuple(sorted(map(int, e))) for e in dele}
        graph |= {tuple(sorted(map(int, e))) for e in ins}
    core = runs["calibrated"][1]
    for i, (name, ind) in enumerate(patterns, start=1):
        p = parse_pattern(name, induced=ind)
        assert core.patterns[i].total == len(reference_matches(graph, p.edges, p.k, ind)), name


def test_outcome_reports_busy_time_imbalance_and_overheads():
    rng = np.random.default_rng(1)
    pairs = rng.integers(0, 30, size=(300, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    _, core = _run("calibrated", pairs[:200], [(pairs[200:], None)] * 3, [("triangle", False)])
    out = core.apply(pairs[:40], pairs[100:140])
    assert len(out.busy_seconds) == 3 and min(out.busy_seconds) > 0
    assert out.imbalance == pytest.approx(max(out.busy_seconds) / min(out.busy_seconds))
    assert out.prediction_seconds > 0 and out.sort_seconds > 0
    assert 0 < sum(out.overhead_share) < 1
    assert {(g.side, g.worker) for g in out.groups} == {(s, w) for s in ("old", "new") for w in range(3)}
    assert sum(g.tasks for g in out.groups) > 0
    assert core.calibrator.fitted(1)
