"""Pattern parsing, validation, automorphisms and isomorphic edge classes."""

from __future__ import annotations

import networkx as nx
import pytest

from deltamatch.scheduler.patterns import BUILTIN_PATTERNS, PatternError, parse_pattern

# (|Aut|, oriented edges, edge classes); house 12 -> 6, 3-sun 18 -> 3, P6 28 -> 6 are in NOTES.md.
EXPECTED = {
    "triangle": (6, 6, 1),
    "4-path": (2, 6, 3),
    "3-star": (6, 6, 2),
    "4-cycle": (8, 8, 1),
    "tailed-triangle": (2, 8, 5),
    "diamond": (4, 10, 3),
    "4-clique": (24, 12, 1),
    "5-cycle": (10, 10, 1),
    "house": (2, 12, 6),
    "5-clique": (120, 20, 1),
    "P1": (2, 12, 6),
    "P2": (6, 18, 3),
}


@pytest.mark.parametrize("name", BUILTIN_PATTERNS)
def test_automorphisms_agree_with_networkx(name):
    p = parse_pattern(name)
    g = nx.Graph(list(p.edges))
    assert p.automorphisms.shape[0] == sum(
        1 for _ in nx.algorithms.isomorphism.GraphMatcher(g, g).isomorphisms_iter()
    )


@pytest.mark.parametrize("name", EXPECTED)
def test_edge_class_counts(name):
    p = parse_pattern(name)
    aut, oriented, classes = EXPECTED[name]
    assert (p.automorphisms.shape[0], len(p.oriented_pairs), len(p.edge_classes)) == (aut, oriented, classes)


def test_p1_is_the_house_and_p2_the_3_sun():
    house = nx.Graph(list(parse_pattern("house").edges))
    assert nx.is_isomorphic(nx.Graph(list(parse_pattern("P1").edges)), house)
    sun = nx.Graph([(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (1, 4), (2, 4), (2, 5), (0, 5)])
    assert nx.is_isomorphic(nx.Graph(list(parse_pattern("P2").edges)), sun)


def test_edge_classes_partition_the_oriented_pairs():
    for name in BUILTIN_PATTERNS:
        for induced in (False, True):
            p = parse_pattern(name, induced=induced)
            flat = [e for c in p.edge_classes for e in c]
            assert sorted(flat) == sorted(p.oriented_pairs) and len(flat) == len(set(flat))


def test_induced_seeds_include_non_edges():
    p = parse_pattern("4-path", induced=True)
    assert len(p.oriented_pairs) == 12


def test_edge_list_string_and_pairs_give_the_same_pattern():
    assert (
        parse_pattern("1-0, 2-1,0-2").edges
        == parse_pattern([(0, 1), (1, 2), (2, 0)]).edges
        == ((0, 1), (0, 2), (1, 2))
    )


@pytest.mark.parametrize(
    "spec, message",
    [
        ("0-1,2-3", "disconnected"),
        ([(i, i + 1) for i in range(8)], "at most 8"),
        ("0-0,0-1", "self-loop"),
        ("0-1,1-0,1-2", "duplicate"),
        ("pentagon", "unknown pattern name"),
        ("0-1,1-x", "not of the form u-v"),
        ("0-1-2", "not of the form u-v"),
        ("0-2,2-3", "vertex 1 has no edge"),
        ([], "no edges"),
        ([(0, 1, 2)], "pairs of integers"),
        ([(0, -1)], "negative"),
    ],
    ids=[
        "disconnected",
        "too-big",
        "self-loop",
        "duplicate",
        "unknown",
        "bad-vertex",
        "bad-edge",
        "gap",
        "empty",
        "triple",
        "negative",
    ],
)
def test_bad_patterns_are_rejected_with_the_reason(spec, message):
    with pytest.raises(PatternError, match=message):
        parse_pattern(spec)
