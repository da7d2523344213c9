"""GraphReplica: batch execution sides, static shares, listed form in external ids."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from deltamatch.kernels.plan_table import TaskList
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.scheduler.plans import compile_plans, shared_plans, static_plan
from deltamatch.scheduler.tasks import NEW, OLD, batch_tasks
from deltamatch.workers.backends import CpuBackend
from deltamatch.workers.protocol import BatchPlan, GraphStats, PatternPlans
from deltamatch.workers.replica import GraphReplica, fewest_first, joint_sequence


def _replica(name: str = "triangle") -> tuple[GraphReplica, PatternPlans]:
    p = parse_pattern(name)
    plans = PatternPlans(compile_plans(p, shared_plans(p)), compile_plans(p, [static_plan(p)]))
    r = GraphReplica("cpu")
    r.register(7, plans)
    return r, plans


def test_static_shares_sum_to_the_whole_count():
    r, _ = _replica("4-clique")
    k6 = [(u, v) for u in range(6) for v in range(u + 1, 6)]
    r.apply_only(1, r.normalize(k6, []))
    assert sum(r.static_count(7, i, 3) for i in range(3)) == r.static_count(7, 0, 1) == 15


def test_execute_finds_removed_on_old_and_added_on_new_in_external_ids():
    r, plans = _replica()
    r.apply_only(1, r.normalize([(100, 200), (200, 300)], []))
    batch = r.normalize([(100, 300), (300, 400), (400, 100)], [(100, 200)])
    changed = batch.changed
    tasks = {7: (batch_tasks(plans.batch, changed, 1, OLD), batch_tasks(plans.batch, changed, 1, NEW))}
    res = r.execute(BatchPlan(2, batch, tasks, 10))
    assert res.version == 2 and r.version == 2
    assert (res.removed[7].count, res.added[7].count) == (0, 1)
    assert res.added[7].rows.tolist() == [[100, 300, 400]]
    assert res.tasks_run == sum(a.size + b.size for a, b in tasks.values())


def test_listing_limit_truncates_but_counts_exactly():
    r, plans = _replica()
    batch = r.normalize([(u, v) for u in range(7) for v in range(u + 1, 7)], [])
    tasks = {
        7: (TaskList.static(np.zeros((0, 2), np.int64)), batch_tasks(plans.batch, batch.changed, 0, NEW))
    }
    res = r.execute(BatchPlan(1, batch, tasks, 4))
    assert (res.added[7].count, res.added[7].rows.shape[0], res.added[7].truncated) == (35, 4, True)


def test_capped_listing_lists_the_tasks_with_fewest_matches():
    r, plans = _replica()
    hub = [(u, v) for u in (0, 1) for v in range(2, 9)] + [(100, 102), (101, 102)]
    r.apply_only(1, r.normalize(hub, []))
    batch = r.normalize([(0, 1), (100, 101)], [])  # the hub's edge first: 7 triangles, then 1
    new = batch_tasks(plans.batch, batch.changed, 0, NEW)
    res = r.execute(BatchPlan(2, batch, {7: (TaskList.static(np.zeros((0, 2), np.int64)), new)}, 1))
    assert (res.added[7].count, res.added[7].rows.tolist(), res.added[7].truncated) == (
        8, [[100, 101, 102]], True)


@given(st.lists(st.sampled_from([0, 1, 2, 3, 7, 10**12]), max_size=40),
       st.sampled_from([1, 2, 3, 5, 8, 13, 21, 30, 10**9, 10**13]))
def test_fewest_first_is_the_shortest_prefix_of_the_tasks_ordered_by_count(counts, limit):
    counts = np.array(counts, dtype=np.int64)
    matched = np.flatnonzero(counts)
    by_count = matched[np.argsort(counts[matched], kind="stable")]
    want = by_count[: int(np.searchsorted(np.cumsum(counts[by_count]), limit, side="left")) + 1]
    np.testing.assert_array_equal(fewest_first(counts, limit), want)


def test_stats_describe_the_graph():
    r, _ = _replica()
    r.apply_only(3, r.normalize([(1, 2), (2, 3), (2, 4)], []))
    assert r.stats() == GraphStats(vertices=4, edges=3, max_degree=3, version=3)


class _StandInDevice(CpuBackend):
    """A device backend played by the CPU engine, counting the groups it runs."""

    name = "stand-in"

    def __init__(self) -> None:
        super().__init__()
        self.counted = 0

    def count(self, plans, tasks, batch, check_other):
        self.counted += 1
        return super().count(plans, tasks, batch, check_other)


def _mixed_batch(r: GraphReplica, seed: int, n: int, loaded: int, inserted: int, deleted: int):
    """r loaded (as version 1) with up to `loaded` random pairs on n vertices, and a batch of up to
    `inserted` random pairs on n + 5 (new vertices too) that deletes `deleted` loaded ones."""
    rng = np.random.default_rng(seed)
    base = rng.integers(0, n, size=(loaded, 2))
    base = base[base[:, 0] != base[:, 1]]
    r.apply_only(1, r.normalize(base, []))
    ins = rng.integers(0, n + 5, size=(inserted, 2))
    return r.normalize(ins[ins[:, 0] != ins[:, 1]], base[:deleted])


def _both_sides(table, batch) -> tuple[TaskList, TaskList]:
    n_del = batch.deleted.shape[0]
    return batch_tasks(table, batch.changed, n_del, OLD), batch_tasks(table, batch.changed, n_del, NEW)


def _routed_run(on_cpu: frozenset) -> tuple[list, int]:
    """A batch on a stand-in device replica with the groups in `on_cpu` routed to the CPU
    engine: (each side's count and rows, groups the device ran)."""
    r, plans = _replica("diamond")
    r.backend = _StandInDevice()
    batch = _mixed_batch(r, 3, 40, 300, 60, 40)
    res = r.execute(BatchPlan(2, batch, {7: _both_sides(plans.batch, batch)}, 10**6, on_cpu))
    sides = [(s[7].count, s[7].rows.tolist()) for s in (res.removed, res.added)]
    return sides, r.backend.counted


def test_results_are_identical_whichever_engine_a_group_routes_to():
    on_device, device_groups = _routed_run(frozenset())
    mixed, mixed_groups = _routed_run(frozenset({(7, "old")}))
    on_cpu, cpu_groups = _routed_run(frozenset({(7, "old"), (7, "new")}))
    assert on_device == mixed == on_cpu and on_device[0][0] > 0 and on_device[1][0] > 0
    assert (device_groups, mixed_groups, cpu_groups) == (2, 1, 0)


def _mixed_run(joint: bool, names=("4-clique", "diamond", "house"), induced: bool = False,
               limit: int = 10**6):
    """Each pattern's sides (count, rows) of a mixed batch, the group times' keys, the graph's edges
    afterwards and whether the replica ran the sides jointly."""
    r = GraphReplica(CpuBackend(joint_sides=joint))
    tables = {}
    for pid, name in enumerate(names):
        p = parse_pattern(name, induced=induced)
        tables[pid] = compile_plans(p, shared_plans(p))
        r.register(pid, PatternPlans(tables[pid], compile_plans(p, [static_plan(p)])))
    batch = _mixed_batch(r, 5, 30, 200, 50, 30)
    plan = BatchPlan(2, batch, {pid: _both_sides(t, batch) for pid, t in tables.items()}, limit)
    ran_jointly = r.joint_sides(plan)
    res = r.execute(plan)
    sides = {pid: [(s[pid].count, s[pid].rows.tolist(), s[pid].truncated) for s in (res.removed, res.added)]
             for pid in tables}
    return sides, sorted(res.group_seconds), r.graph.edges().tolist(), ran_jointly


def test_a_joint_batch_gives_each_sides_results_and_the_same_graph():
    joint, joint_groups, joint_edges, ran_jointly = _mixed_run(True)
    apart, apart_groups, apart_edges, ran_apart = _mixed_run(False)
    assert (ran_jointly, ran_apart) == (True, False)
    assert joint == apart and all(side[0] > 0 for sides in apart.values() for side in sides)
    assert joint_groups == apart_groups and joint_edges == apart_edges


@pytest.mark.parametrize("limit", [3, 0], ids=["listing", "count-only"])
def test_a_joint_batch_lists_up_to_the_limit_per_side(limit):
    """Capped listing, and count-only batches, whose deletions are applied behind the last count."""
    joint, apart = _mixed_run(True, limit=limit), _mixed_run(False, limit=limit)
    assert joint[0] == apart[0] and joint[2] == apart[2]


def test_induced_patterns_run_their_sides_apart():
    assert _mixed_run(True, ("diamond",), induced=True)[3] is False


@pytest.mark.parametrize("queue", [True, False])
def test_joint_sequence_inserts_counts_then_deletes_once(queue):
    calls = []

    def count(key, then):
        calls.append((key, then is not None))
        if then is not None:
            then()

    joint_sequence(["a", "b"], count, lambda: calls.append("+I"), lambda: calls.append("-D"), queue)
    assert calls == ["+I", ("a", False), ("b", queue), "-D"]


def test_joint_sequence_deletes_when_a_count_fails():
    calls = []

    def count(key, then):
        raise RuntimeError(key)

    with pytest.raises(RuntimeError):
        joint_sequence(["a"], count, lambda: calls.append("+I"), lambda: calls.append("-D"), True)
    assert calls == ["+I", "-D"]
