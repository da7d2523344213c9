"""The brute-force oracle against networkx's VF2 on every small graph of the atlas."""

from __future__ import annotations

import networkx as nx
import pytest

from deltamatch.kernels.reference import reference_matches
from deltamatch.scheduler.patterns import BUILTIN_PATTERNS, parse_pattern

ATLAS = [g for g in nx.graph_atlas_g() if g.number_of_edges() > 0][::9]
PATTERNS = [n for n in BUILTIN_PATTERNS if parse_pattern(n).k <= 5]


def _vf2(g: nx.Graph, pattern, induced: bool) -> int:
    pg = nx.Graph(list(pattern.edges))
    gm = nx.algorithms.isomorphism.GraphMatcher(g, pg)
    it = gm.subgraph_isomorphisms_iter() if induced else gm.subgraph_monomorphisms_iter()
    return sum(1 for _ in it) // pattern.automorphisms.shape[0]


@pytest.mark.parametrize("induced", [False, True], ids=["edge", "induced"])
@pytest.mark.parametrize("name", PATTERNS)
def test_reference_counts_equal_vf2_on_the_atlas(name, induced):
    p = parse_pattern(name, induced=induced)
    for g in ATLAS:
        assert len(reference_matches(g.edges, p.edges, p.k, induced)) == _vf2(g, p, induced), g.graph


def test_listed_form_is_the_smallest_tuple_of_a_match():
    got = reference_matches([(5, 1), (1, 3), (3, 5), (3, 9)], [(0, 1), (1, 2), (0, 2), (2, 3)], 4)
    assert got == {(1, 5, 3, 9)}
    assert reference_matches([(2, 1), (1, 0), (0, 2)], [(0, 1), (1, 2), (0, 2)], 3) == {(0, 1, 2)}
