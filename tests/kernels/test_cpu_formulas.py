"""Whole-graph counts by formula (kernels/cpu_formulas.py) against the reference and the engine."""

from __future__ import annotations

import random

import numpy as np
import pytest

from deltamatch.bench.rmat import rmat_edges
from deltamatch.kernels import cpu_engine
from deltamatch.kernels.cpu_formulas import EdgeCounts, formula_count
from deltamatch.kernels.plan_table import TaskList
from deltamatch.kernels.reference import reference_matches
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.scheduler.plans import compile_plans, static_plan
from deltamatch.workers.graph import DynamicGraph

FORMULAS = ["diamond", "4-cycle", "house"]


def _graph(edges) -> DynamicGraph:
    g = DynamicGraph()
    g.apply(g.normalize(np.asarray(list(edges), dtype=np.int64).reshape(-1, 2), []))
    return g


def _static_table(name: str):
    pattern = parse_pattern(name)
    return compile_plans(pattern, [static_plan(pattern)])


def _shares(g: DynamicGraph, name: str, parts: int) -> int:
    return sum(formula_count(g.view(), _static_table(name), part, parts) for part in range(parts))


@pytest.mark.parametrize("parts", [1, 3])
@pytest.mark.parametrize("seed", range(6))
def test_formulas_equal_the_reference_on_random_graphs(seed: int, parts: int) -> None:
    rng = random.Random(seed)
    density = (0.2, 0.4, 0.7)[seed % 3]
    edges = [(u, v) for u in range(10) for v in range(u + 1, 10) if rng.random() < density]
    g = _graph(edges)
    for name in FORMULAS:
        pattern = parse_pattern(name)
        assert _shares(g, name, parts) == len(reference_matches(edges, pattern.edges, pattern.k, False)), name


@pytest.mark.parametrize("name", FORMULAS)
def test_formulas_equal_a_match_run_on_a_graph_with_hubs(name: str) -> None:
    g = _graph(rmat_edges(9))  # max degree 284, 14 times the mean
    table = _static_table(name)
    view = g.batch_view(np.zeros((0, 2), np.int32))
    counts = cpu_engine.count_tasks(g.view(), table, TaskList.static(g.internal_edges()), view)
    g.release(view)
    assert _shares(g, name, 2) == int(counts.sum()) > 0


def test_the_slots_of_an_edge_hold_its_triangles() -> None:
    g = _graph([(0, 1), (1, 2), (2, 0), (2, 3), (3, 0), (3, 4)])
    view = g.view()
    t = EdgeCounts(view).triangles
    ids = {int(x): i for i, x in enumerate(g.vertices.external)}
    for (a, b), want in {(0, 2): 2, (0, 1): 1, (2, 3): 1, (3, 4): 0}.items():
        for u, v in ((a, b), (b, a)):
            row = view.pool[view.offsets[ids[u]] : view.offsets[ids[u]] + view.degree[ids[u]]]
            slot = view.offsets[ids[u]] + int(np.searchsorted(row, ids[v]))
            assert t[slot] == want


def test_patterns_without_a_formula_get_none() -> None:
    g = _graph([(0, 1), (1, 2), (2, 0)])
    for name in ("triangle", "4-clique", "5-cycle"):
        assert formula_count(g.view(), _static_table(name)) is None
    induced = parse_pattern("house", induced=True)
    assert formula_count(g.view(), compile_plans(induced, [static_plan(induced)])) is None
