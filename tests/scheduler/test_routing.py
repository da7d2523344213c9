"""Routing by predicted size: task groups between the device and the CPU engine, small batches
to the scheduler's own engine."""

from __future__ import annotations

import numpy as np
import pytest

from deltamatch.kernels.cpu_engine import EngineOptions
from deltamatch.kernels.reference import reference_matches
from deltamatch.scheduler.core import (
    RECOUNT_MIN_EDGES,
    BatchFailed,
    RecountTime,
    SchedulerCore,
    WorkerPool,
    split_shares,
)
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.scheduler.routing import Routing
from deltamatch.workers.backends import CpuBackend
from deltamatch.workers.protocol import BatchPlan
from deltamatch.workers.replica import GraphReplica


def test_auto_sends_groups_below_the_crossover_to_the_cpu():
    r = Routing("auto", crossover=100.0)
    assert (r.on_cpu(99.0), r.on_cpu(100.0), r.on_cpu(None)) == (True, False, False)


@pytest.mark.parametrize("mode, expected", [("cpu", True), ("gpu", False)])
def test_a_forced_route_ignores_the_prediction(mode, expected):
    r = Routing(mode, crossover=100.0)
    assert r.on_cpu(1.0) == r.on_cpu(1e9) == r.on_cpu(None) == expected


def test_auto_matches_batches_below_the_local_threshold_in_the_scheduler():
    r = Routing("auto", crossover=100.0, local_below=50.0)
    assert (r.local(49.0), r.local(50.0), r.local(None)) == (True, False, False)
    assert not Routing("auto").local(0.0)  # off by default


@pytest.mark.parametrize("mode", ["cpu", "gpu", "local"])
def test_a_forced_route_decides_where_every_batch_runs(mode):
    r = Routing(mode, local_below=100.0)
    assert r.local(1.0) == r.local(1e9) == r.local(None) == (mode == "local")


def test_settings_come_from_the_environment():
    env = {"DELTAMATCH_ROUTE": " CPU ", "DELTAMATCH_ROUTE_CROSSOVER": "2.5e4", "DELTAMATCH_ROUTE_LOCAL": "7"}
    assert Routing.from_env(env) == Routing("cpu", 25000.0, 7.0)
    assert Routing.from_env({}) == Routing("auto", 0.0, 0.0, "auto")
    assert Routing.from_env({"DELTAMATCH_RECOUNT": "Never"}).recount == "never"


CROSSOVER = "DELTAMATCH_ROUTE_CROSSOVER"
LOCAL = "DELTAMATCH_ROUTE_LOCAL"


@pytest.mark.parametrize("env, field", [({"DELTAMATCH_ROUTE": "fpga"}, "DELTAMATCH_ROUTE"),
                                        ({CROSSOVER: "many"}, CROSSOVER), ({CROSSOVER: "-1"}, CROSSOVER),
                                        ({LOCAL: "x"}, LOCAL), ({LOCAL: "-2"}, LOCAL),
                                        ({"DELTAMATCH_RECOUNT": "often"}, "DELTAMATCH_RECOUNT")])
def test_bad_settings_are_refused_naming_the_variable(env, field):
    with pytest.raises(ValueError, match=field):
        Routing.from_env(env)


class _Recording:
    """Wraps a pool and keeps the plans it was sent."""

    def __init__(self, pool) -> None:
        self.pool, self.plans = pool, []

    def __getattr__(self, name):
        return getattr(self.pool, name)

    def __len__(self) -> int:
        return len(self.pool)

    def execute(self, plans: list[BatchPlan], meanwhile=None):
        self.plans.append(plans)
        return self.pool.execute(plans, meanwhile)

    def apply_behind(self, version, batch) -> None:
        self.plans.append(version)
        self.pool.apply_behind(version, batch)


def _routed(make_core, routing: Routing) -> tuple[list[frozenset], dict]:
    core = make_core(replicas=2, routing=routing)
    core.pool = _Recording(core.pool)
    tri = core.register(parse_pattern("triangle")).id
    star = core.register(parse_pattern("3-star")).id
    core.apply([(u, v) for u in range(9) for v in range(u + 1, 9) if (u + v) % 3], [])
    out = core.apply([(0, 3), (1, 4), (2, 8)], [(0, 1)])
    totals = {pid: (d.added_count, d.removed_count, d.total) for pid, d in out.deltas.items()}
    return [p.on_cpu for p in core.pool.plans[-1]], {"tri": totals[tri], "star": totals[star]}


def test_core_routes_each_workers_share_by_its_predicted_cost(make_core):
    none, base = _routed(make_core, Routing("auto", 0.0))
    every, same = _routed(make_core, Routing("auto", float("inf")))
    assert none == [frozenset(), frozenset()]
    assert all({(1, "old"), (1, "new"), (2, "old"), (2, "new")} == s for s in every)
    assert same == base
    forced, _ = _routed(make_core, Routing("cpu"))
    assert forced == every


def _session(make_core, routing: Routing):
    """Two workers, three patterns (one induced), batches with insertions and deletions: every
    outcome's counts and listings, the workers' graphs, and what the pool was sent."""
    core = make_core(replicas=2, routing=routing)
    core.pool = _Recording(core.pool)
    for name, induced in (("triangle", False), ("diamond", False), ("4-cycle", True)):
        core.register(parse_pattern(name, induced))
    rng = np.random.default_rng(3)

    def pairs(n: int, size: int) -> np.ndarray:
        e = rng.integers(0, n, (size, 2))
        return e[e[:, 0] != e[:, 1]]

    core.load(pairs(40, 300))
    seen = []
    for _ in range(4):
        out = core.apply(pairs(45, 25), pairs(40, 10))
        seen.append([(d.added_count, d.removed_count, d.total, d.added.tolist(), d.removed.tolist())
                     for d in out.deltas.values()])
    graphs = [r.graph.internal_edges().tolist() for r in core.pool.pool.replicas]
    return core, seen, graphs


def test_local_batches_equal_the_workers_and_leave_the_workers_applied(make_core):
    workers, want, want_graphs = _session(make_core, Routing("auto"))
    local, got, graphs = _session(make_core, Routing("local"))
    assert got == want
    assert graphs == want_graphs and graphs[0] == local.intake.graph.internal_edges().tolist()
    assert [r.version for r in local.pool.pool.replicas] == [local.version] * 2
    assert local.pool.plans == [2, 3, 4, 5]  # the workers were only told to apply each batch
    assert all(isinstance(p, list) for p in workers.pool.plans)
    assert local.stats() == workers.stats()


def test_auto_picks_local_by_the_whole_batchs_predicted_cost(make_core):
    _, want, _ = _session(make_core, Routing("auto"))
    core, got, _ = _session(make_core, Routing("auto", local_below=float("inf")))
    assert got == want and core.pool.plans == [2, 3, 4, 5]


def test_forced_local_computes_no_cost_features(make_core):
    core = make_core(replicas=1, routing=Routing("local"))
    core.register(parse_pattern("triangle"))
    core.intake.features = None  # a call would fail
    out = core.apply([(0, 1), (1, 2), (2, 0)], [])
    assert out.local and out.deltas[1].added_count == 1 and out.predicted_load == [0.0]


def _features_calls(core) -> list[bool]:
    """The `common` argument of each of the intake's feature computations from now on."""
    calls, features = [], core.intake.features

    def recorded(batch, common):
        calls.append(common)
        return features(batch, common)

    core.intake.features = recorded
    return calls


@pytest.mark.parametrize(("local_below", "local", "calls"), [(float("inf"), True, [False]),
                                                             (1e-9, False, [False, True])])
def test_auto_counts_common_neighbours_only_when_their_bound_does_not_decide(make_core, local_below, local,
                                                                             calls):
    """The diamond's costs need |N(u) ∩ N(v)|: a batch local even with every count at its bound
    min(d_u, d_v) is decided without them; otherwise they are counted and decide."""
    core = make_core(replicas=1, routing=Routing("auto", local_below=local_below))
    diamond = core.register(parse_pattern("diamond")).id
    core.apply([(0, 1), (1, 2), (2, 0), (2, 3)], [])
    seen = _features_calls(core)
    out = core.apply([(0, 3), (1, 3)], [])  # K4: a diamond per edge left out
    assert out.local == local and seen == calls and out.deltas[diamond].added_count == 6


@pytest.mark.parametrize("error", [RuntimeError, ValueError])
def test_a_local_batch_that_fails_in_the_search_reaches_no_worker(make_core, error):
    """Nor is it reported as bad input: past validation a ValueError is the engine's and may
    leave the scheduler's graph half applied (`BatchFailed`: the actor restores it)."""
    core = make_core(replicas=2, routing=Routing("local"))
    core.register(parse_pattern("triangle"))
    core.apply([(0, 1), (1, 2)], [])

    def fail(plan, patterns):
        raise error("engine failure")

    core.intake.run = fail
    with pytest.raises(RuntimeError, match="engine failure") as info:
        core.apply([(2, 0)], [])
    assert not isinstance(info.value, ValueError)
    assert isinstance(info.value, BatchFailed) == (error is ValueError)
    assert [(r.version, r.stats().edges) for r in core.pool.replicas] == [(1, 2), (1, 2)]


def test_auto_recounts_once_the_tasks_cost_more_than_the_recount():
    r = Routing()
    assert (r.recounts(2.0, 1.0), r.recounts(1.0, 1.0), r.recounts(None, 0.0)) == (True, False, False)


@pytest.mark.parametrize("mode", ["always", "never"])
def test_a_forced_recount_ignores_the_estimates(mode):
    r = Routing(recount=mode)
    assert r.recounts(None, 1.0) == r.recounts(0.0, 1.0) == r.recounts(9.0, 1.0) == (mode == "always")


def test_a_recounts_estimate_grows_with_the_edges_from_no_fewer_than_the_floor():
    assert RecountTime(2.0, 50_000).estimate(100_000) == 4.0
    assert RecountTime(2.0, 50_000).estimate(10) == 2.0  # never below the measured time
    assert RecountTime(0.01, 10).estimate(5 * RECOUNT_MIN_EDGES) == pytest.approx(0.05)


def _recount_session(make_core, name: str, replicas: int, routing: Routing, seed: int = 5):
    """Count-only batches (inserts alone, then with deletes) on a random graph: per batch the
    pattern's (added, removed, total) and the sides recounted, and the reference's counts."""
    core = make_core(replicas=replicas, routing=routing, list_limit=0)
    core.pool = _Recording(core.pool)
    pattern = parse_pattern(name)
    rng = np.random.default_rng(seed)
    edges = {tuple(sorted(map(int, e))) for e in rng.integers(0, 30, (160, 2)) if e[0] != e[1]}
    core.load(sorted(edges))
    pid = core.register(pattern).id
    got, want = [], []
    before = len(reference_matches(edges, pattern.edges, pattern.k, False))
    for step in range(5):
        ins = [tuple(sorted(map(int, e))) for e in rng.integers(0, 34, (12, 2)) if e[0] != e[1]]
        present = sorted(edges)
        dele = [present[i] for i in rng.choice(len(present), 6 * (step % 2), replace=False)]
        out = core.apply(ins, dele)
        mid = len(reference_matches(edges - set(dele), pattern.edges, pattern.k, False))
        edges = (edges - set(dele)) | set(ins)
        after = len(reference_matches(edges, pattern.edges, pattern.k, False))
        d = out.deltas[pid]
        got.append((d.added_count, d.removed_count, d.total, {s for p, s in out.recounted if p == pid}))
        want.append((after - mid, before - mid, after))
        before = after
    return core, pid, got, want


@pytest.mark.parametrize("replicas", [1, 3])
@pytest.mark.parametrize("name", ["diamond", "4-cycle", "house"])
def test_recounted_batches_count_what_their_tasks_would(make_core, name, replicas):
    core, _, got, want = _recount_session(make_core, name, replicas, Routing(recount="always"))
    assert [g[:3] for g in got] == want
    assert [g[3] for g in got] == [{"new"}, {"old", "new"}] * 2 + [{"new"}]
    for plans in core.pool.plans:
        for plan in plans:
            assert all(plan.tasks[pid][side == "new"].size == 0 for pid, side in plan.recounts)
    assert [p.share for p in core.pool.plans[-1]] == [(w, replicas) for w in range(replicas)]


def _mixed_pool_core(replicas: int, **kwargs) -> SchedulerCore:
    """Three CPU workers, the middle one cutting whole-graph counts by edges (formulas off), the
    others by vertices (formulas on): shares of the two kinds do not add up."""
    options = [EngineOptions(), EngineOptions(formulas=False), EngineOptions()][:replicas]
    return SchedulerCore(WorkerPool([GraphReplica(CpuBackend(options=o)) for o in options]), **kwargs)


@pytest.mark.parametrize("name", ["diamond", "house"])
def test_a_pool_that_cuts_whole_graph_counts_two_ways_counts_them_on_one_kind(name):
    core, _, got, want = _recount_session(_mixed_pool_core, name, 3, Routing(recount="always"))
    assert [g[:3] for g in got] == want  # registration's count and every recount
    assert [p.share for p in core.pool.plans[-1]] == [(0, 2), None, (1, 2)]


def test_recounts_by_matching_count_right_inside_a_batch():
    """With the CPU formulas off a recount matches the whole graph, opening a batch view while the
    batch's own is open (the two once shared their slots: a crash)."""
    def core(replicas: int, **kwargs) -> SchedulerCore:
        backends = [CpuBackend(options=EngineOptions(formulas=False)) for _ in range(replicas)]
        return SchedulerCore(WorkerPool([GraphReplica(b) for b in backends]), **kwargs)

    _, _, got, want = _recount_session(core, "diamond", 2, Routing(recount="always"))
    assert [g[:3] for g in got] == want


def test_shares_go_to_every_worker_alike_else_to_the_most_common_kind_only():
    assert split_shares(["a", "a", "a"]) == [(0, 3), (1, 3), (2, 3)]
    assert split_shares(["a", "b", "b"]) == [None, (0, 2), (1, 2)]
    assert split_shares(["b", "a"]) == [(0, 1), None]  # among equals, the first to appear


def test_auto_recounts_when_its_estimate_is_below_the_calibrated_tasks(make_core):
    _, _, got, want = _recount_session(make_core, "house", 2, Routing())
    assert [g[:3] for g in got] == want  # whichever way each batch went
    core = make_core(replicas=2, list_limit=0)
    pid = core.register(parse_pattern("house")).id
    wheel = [(0, v) for v in range(1, 12)] + [(v, v + 1) for v in range(1, 11)]
    assert not core.apply(wheel, []).recounted  # no calibrated estimate of the tasks yet
    core.patterns[pid].recount = RecountTime(0.0, 10**9)
    out = core.apply([(1, 11), (2, 12), (3, 12)], [(0, 5)])
    assert out.recounted == {(pid, "old"), (pid, "new")}
    assert out.deltas[pid].total == len(reference_matches(
        (set(wheel) - {(0, 5)}) | {(1, 11), (2, 12), (3, 12)}, parse_pattern("house").edges, 5, False))


def test_before_a_fit_auto_recounts_only_sides_whose_tasks_read_the_graph_a_thousand_times(make_core):
    dense = [(u, v) for u in range(20) for v in range(u + 1, 20) if (7 * u + 3 * v) % 5]
    outcomes = []
    for mode in ("auto", "never"):
        core = make_core(list_limit=0, routing=Routing(recount=mode))
        core.load(dense[:-20])
        house, diamond = (core.register(parse_pattern(name)).id for name in ("house", "diamond"))
        outcomes.append(core.apply(dense[-20:], dense[:10]))
    auto, by_tasks = outcomes
    # house: 1.3 and 2.5 times the thousand reads (old, new); diamond: 0.04 and 0.07 times
    assert auto.recounted == {(house, "old"), (house, "new")}
    assert not by_tasks.recounted
    for pid in (house, diamond):
        assert (auto.deltas[pid].added_count, auto.deltas[pid].removed_count, auto.deltas[pid].total) == (
            by_tasks.deltas[pid].added_count, by_tasks.deltas[pid].removed_count, by_tasks.deltas[pid].total)


@pytest.mark.parametrize("name, induced", [("house", True), ("4-clique", False)])
def test_patterns_without_a_formula_and_listing_batches_never_recount(make_core, name, induced):
    core = make_core(routing=Routing(recount="always"), list_limit=0)
    other = core.register(parse_pattern(name, induced)).id
    core.apply([(u, v) for u in range(7) for v in range(u + 1, 7)], [])
    assert not core.apply([(0, 7), (1, 7), (2, 7)], []).recounted
    assert core.patterns[other].recount is None
    listing = make_core(routing=Routing(recount="always"), list_limit=10)
    listing.register(parse_pattern("4-cycle"))
    listing.apply([(u, v) for u in range(7) for v in range(u + 1, 7)], [])
    assert not listing.apply([(0, 7), (1, 7), (2, 7)], []).recounted
