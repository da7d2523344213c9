"""Graph arguments of the suite: RMAT specs, named real graphs, user files."""

from __future__ import annotations

import numpy as np
import pytest

from deltamatch.bench.graphs import (
    GraphSpecError,
    graph_stats,
    load_graph,
    parse_rmat,
    real_graph_path,
    simple_edges,
)


def test_rmat_spec_defaults():
    assert parse_rmat("rmat:12") == (12, 16, 1)
    assert parse_rmat("rmat:12:8:5") == (12, 8, 5)


@pytest.mark.parametrize("spec", ["rmat:", "rmat:x", "rmat:1:2:3:4", "rmat:0"])
def test_bad_rmat_spec_is_named(spec):
    with pytest.raises(GraphSpecError, match="rmat"):
        parse_rmat(spec)


def test_simple_edges_keeps_first_occurrence_in_order():
    pairs = np.array([[5, 2], [1, 1], [2, 5], [3, 4], [4, 3], [0, 9]])
    assert simple_edges(pairs).tolist() == [[2, 5], [3, 4], [0, 9]]


def test_rmat_graph_is_deterministic_and_simple():
    a, b = load_graph("rmat:8"), load_graph("rmat:8")
    assert np.array_equal(a.edges, b.edges)
    assert (a.edges[:, 0] < a.edges[:, 1]).all()
    assert a.stats["E"] == a.edges.shape[0] == np.unique(a.edges, axis=0).shape[0]


@pytest.mark.skipif(real_graph_path("citeseer") is None, reason="no shared data directory in this clone")
def test_named_real_graph_resolves():
    g = load_graph("citeseer")
    assert (g.kind, g.stats["E"]) == ("real", 4536)


def test_user_file(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("# comment\n0 1\n1 2\n2 0\n2 3\n")
    g = load_graph(str(path))
    assert (g.name, g.kind, graph_stats(g.edges)) == ("g", "file", {"V": 4, "E": 4, "max_degree": 3})


def test_unknown_graph_is_named():
    with pytest.raises(GraphSpecError, match="no-such-graph"):
        load_graph("no-such-graph")
