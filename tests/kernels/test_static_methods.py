"""Which whole-graph counts may run oriented or by formula (`cuda_engine.orientable`,
`cuda_engine.diamond_formula`, the CPU formulas' `plan_table` tests): decided from the plan table
alone, on the host (no GPU needed)."""

from __future__ import annotations

import networkx as nx
import pytest

from deltamatch.kernels import cuda_engine
from deltamatch.kernels.plan_table import (
    has_count_formula,
    is_edge_induced_diamond,
    is_edge_induced_four_cycle,
    is_edge_induced_house,
)
from deltamatch.scheduler.patterns import BUILTIN_PATTERNS, parse_pattern
from deltamatch.scheduler.plans import compile_plans, shared_plans, static_plan

CLIQUES = {"triangle", "4-clique", "5-clique"}


def static_table(name: str, induced: bool):
    pattern = parse_pattern(name, induced=induced)
    return compile_plans(pattern, [static_plan(pattern)])


@pytest.mark.parametrize("induced", [False, True])
@pytest.mark.parametrize("name", sorted(BUILTIN_PATTERNS))
def test_only_cliques_run_on_the_oriented_graph(name: str, induced: bool) -> None:
    assert cuda_engine.orientable(static_table(name, induced)) == (name in CLIQUES)


@pytest.mark.parametrize("induced", [False, True])
@pytest.mark.parametrize("name", sorted(BUILTIN_PATTERNS))
def test_only_the_edge_induced_diamond_counts_by_formula(name: str, induced: bool) -> None:
    assert cuda_engine.diamond_formula(static_table(name, induced)) == (name == "diamond" and not induced)


@pytest.mark.parametrize("induced", [False, True])
@pytest.mark.parametrize("name", sorted(BUILTIN_PATTERNS))
def test_only_the_edge_induced_4_cycle_counts_by_wedges(name: str, induced: bool) -> None:
    assert cuda_engine.cycle_formula(static_table(name, induced)) == (name == "4-cycle" and not induced)


HOUSES = {"house", "P1"}  # P1 is the house (GraphPi's numbering)


@pytest.mark.parametrize("induced", [False, True])
@pytest.mark.parametrize("name", sorted(BUILTIN_PATTERNS))
def test_the_cpu_formulas_take_the_edge_induced_diamond_4_cycle_and_house(name: str, induced: bool) -> None:
    table = static_table(name, induced)
    assert is_edge_induced_diamond(table) == (name == "diamond" and not induced)
    assert is_edge_induced_four_cycle(table) == (name == "4-cycle" and not induced)
    assert is_edge_induced_house(table) == (name in HOUSES and not induced)
    assert has_count_formula(table) == (name in {"diamond", "4-cycle"} | HOUSES and not induced)


def test_the_house_is_the_only_graph_the_house_test_takes() -> None:
    """Every connected graph of five vertices and six edges (networkx's atlas), against the house."""
    house = nx.Graph(BUILTIN_PATTERNS["house"])
    for g in nx.graph_atlas_g():
        if g.number_of_nodes() == 5 and g.number_of_edges() == 6 and nx.is_connected(g):
            pattern = parse_pattern([tuple(e) for e in g.edges()])
            table = compile_plans(pattern, [static_plan(pattern)])
            assert is_edge_induced_house(table) == nx.is_isomorphic(g, house)


@pytest.mark.parametrize("induced", [False, True])
@pytest.mark.parametrize(("name", "bounded"), [("4-clique", True), ("diamond", False), ("4-cycle", False),
                                                ("house", False), ("5-clique", False)])
def test_chunk_costs_are_bounded_by_the_set_where_level_3_is_built_from_it(name: str, induced: bool,
                                                                          bounded: bool) -> None:
    pattern = parse_pattern(name, induced=induced)
    assert cuda_engine.set_bounded(compile_plans(pattern, shared_plans(pattern))) is bounded
