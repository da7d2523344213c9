"""count_within: the CPU engine in a child process, its counts and time, or a bound at its limit."""

from __future__ import annotations

import numpy as np

from deltamatch.bench.cpu_bound import count_within
from deltamatch.bench.rmat import rmat_edges
from deltamatch.kernels import cpu_engine
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.scheduler.plans import compile_plans, shared_plans
from deltamatch.scheduler.tasks import NEW, batch_tasks
from deltamatch.workers.graph import DynamicGraph


def _house_batch(scale: int):
    """A house batch's new side on an RMAT graph: 90% of its edges loaded, 200 inserted."""
    edges = rmat_edges(scale)
    cut = int(0.9 * edges.shape[0])
    g = DynamicGraph()
    g.apply(g.normalize(edges[:cut], []))
    batch = g.normalize(edges[cut : cut + 200], [])
    g.apply(batch)
    pattern = parse_pattern("house")
    table = compile_plans(pattern, shared_plans(pattern))
    tasks = batch_tasks(table, batch.changed, batch.deleted.shape[0], NEW)
    return g.view(), table, tasks, g.batch_view(batch.changed)


def test_a_finished_run_gives_the_engines_counts_and_time():
    graph, table, tasks, view = _house_batch(8)
    got = count_within(graph, table, tasks, view, limit_s=300)
    assert not got.stopped and 0 < got.seconds < 300
    assert np.array_equal(got.counts, cpu_engine.count_tasks(graph, table, tasks, view))
    assert got.counts.sum() > 0


def test_a_run_past_its_limit_is_stopped_at_it():
    graph, table, tasks, view = _house_batch(11)  # about a second of counting on one core
    got = count_within(graph, table, tasks, view, limit_s=0.01)
    assert got.stopped and got.counts is None and got.seconds == 0.01
