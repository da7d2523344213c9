"""Which whole-graph counts may run oriented or by formula (`cuda_engine.orientable`,
`cuda_engine.diamond_formula`): decided from the plan table alone, on the host (no GPU needed)."""

from __future__ import annotations

import pytest

from deltamatch.kernels import cuda_engine
from deltamatch.scheduler.patterns import BUILTIN_PATTERNS, parse_pattern
from deltamatch.scheduler.plans import compile_plans, static_plan

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
