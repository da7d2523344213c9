"""Routing task groups between the device and the CPU engine by predicted size."""

from __future__ import annotations

import pytest

from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.scheduler.routing import Routing
from deltamatch.workers.protocol import BatchPlan


def test_auto_sends_groups_below_the_crossover_to_the_cpu():
    r = Routing("auto", crossover=100.0)
    assert (r.on_cpu(99.0), r.on_cpu(100.0), r.on_cpu(None)) == (True, False, False)


@pytest.mark.parametrize("mode, expected", [("cpu", True), ("gpu", False)])
def test_a_forced_route_ignores_the_prediction(mode, expected):
    r = Routing(mode, crossover=100.0)
    assert r.on_cpu(1.0) == r.on_cpu(1e9) == r.on_cpu(None) == expected


def test_settings_come_from_the_environment():
    env = {"DELTAMATCH_ROUTE": " CPU ", "DELTAMATCH_ROUTE_CROSSOVER": "2.5e4"}
    assert Routing.from_env(env) == Routing("cpu", 25000.0)
    assert Routing.from_env({}) == Routing("auto", 0.0)


CROSSOVER = "DELTAMATCH_ROUTE_CROSSOVER"


@pytest.mark.parametrize("env, field", [({"DELTAMATCH_ROUTE": "fpga"}, "DELTAMATCH_ROUTE"),
                                        ({CROSSOVER: "many"}, CROSSOVER), ({CROSSOVER: "-1"}, CROSSOVER)])
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

    def execute(self, plans: list[BatchPlan]):
        self.plans.append(plans)
        return self.pool.execute(plans)


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
