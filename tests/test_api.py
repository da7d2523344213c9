"""The library API against networkx: counts and listings on random graphs, names kept."""

from __future__ import annotations

import doctest
import itertools
import subprocess
import sys

import networkx as nx
import numpy as np
import pytest
from networkx.algorithms import isomorphism

import deltamatch
from deltamatch import api
from deltamatch.scheduler.names import VertexIdError
from deltamatch.scheduler.patterns import PatternError, parse_pattern
from deltamatch.workers.cuda_backend import cuda_available


def nx_matches(graph: nx.Graph, name: str, induced: bool) -> set[frozenset]:
    """networkx's matches of a built-in pattern: edge sets (edge-induced) or vertex sets (induced)."""
    p = parse_pattern(name, induced)
    pattern = nx.Graph(list(p.edges))
    gm = isomorphism.GraphMatcher(graph, pattern)
    found = gm.subgraph_isomorphisms_iter() if induced else gm.subgraph_monomorphisms_iter()
    out = set()
    for mapping in found:  # graph vertex -> pattern vertex
        inverse = {pv: gv for gv, pv in mapping.items()}
        if induced:
            out.add(frozenset(mapping))
        else:
            out.add(frozenset(frozenset((inverse[a], inverse[b])) for a, b in p.edges))
    return out


def as_match_sets(rows: list[tuple], name: str, induced: bool) -> set[frozenset]:
    p = parse_pattern(name, induced)
    if induced:
        return {frozenset(row) for row in rows}
    return {frozenset(frozenset((row[a], row[b])) for a, b in p.edges) for row in rows}


def random_graph(seed: int, labels: str) -> nx.Graph:
    g = nx.gnm_random_graph(18, 50, seed=seed)
    if labels == "str":
        g = nx.relabel_nodes(g, {v: f"acct-{(v * 7) % 18:02d}" for v in g})
    return g


PATTERNS = ["triangle", "4-cycle", "diamond", "tailed-triangle", "house"]


@pytest.mark.parametrize("labels", ["int", "str"])
@pytest.mark.parametrize("induced", [False, True])
def test_count_and_listing_match_networkx(labels, induced):
    for seed, name in zip(range(3), itertools.cycle(PATTERNS), strict=False):
        g = random_graph(seed, labels)
        expected = nx_matches(g, name, induced)
        assert deltamatch.count(g, name, induced=induced, backend="cpu") == len(expected)
        rows = deltamatch.matches(g, name, induced=induced, backend="cpu")
        assert len(rows) == len(expected)
        assert as_match_sets(rows, name, induced) == expected


def test_listing_is_sorted_smallest_relabelling_in_user_names():
    g = random_graph(4, "str")
    aut = parse_pattern("4-cycle").automorphisms
    rows = deltamatch.matches(g, "4-cycle", backend="cpu")
    assert rows and rows == sorted(rows)
    for row in rows:
        assert all(isinstance(x, str) for x in row)
        assert row == min(tuple(row[s] for s in perm) for perm in aut.tolist())


def test_limit_cuts_the_sorted_listing():
    g = random_graph(5, "int")
    everything = deltamatch.matches(g, "triangle", backend="cpu")
    assert deltamatch.matches(g, "triangle", limit=2, backend="cpu") == everything[:2]


def test_matcher_deltas_follow_networkx_through_batches():
    rng = np.random.default_rng(7)
    g = random_graph(6, "str")
    m = deltamatch.Matcher(backend="cpu")
    m.load(g)
    pid = m.register("triangle")
    nodes = sorted(g)
    for _ in range(5):
        ins = [tuple(rng.choice(nodes, 2, replace=False)) for _ in range(6)]
        dele = [tuple(e) for e in rng.permutation(np.array(list(g.edges)))[:4]]
        before = nx_matches(g, "triangle", False)
        g.remove_edges_from(dele)
        g.add_edges_from(ins)
        after = nx_matches(g, "triangle", False)
        delta = m.apply(insert=ins, delete=dele)[pid]
        expected = (len(after - before), len(before - after), len(after))
        assert (delta.added, delta.removed, delta.total) == expected
        assert as_match_sets(delta.added_matches, "triangle", False) == after - before
        assert as_match_sets(delta.removed_matches, "triangle", False) == before - after
        assert m.total(pid) == len(after)


def test_a_single_edge_pattern_counts_and_lists_the_edges():
    m = api.Matcher("cpu", list_limit=2)
    m.load([(1, 2), (2, 3)])
    pid = m.register([(0, 1)])
    delta = m.apply(insert=[(3, 4), (4, 5), (5, 6)], delete=[(1, 2)])[pid]
    assert (delta.added, delta.removed, delta.total, len(delta.added_matches)) == (3, 1, 4, 2)


def test_dataframe_input_with_named_columns():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"src": ["a", "b", "c", "c", "d"], "dst": ["b", "c", "a", "d", "d"], "w": range(5)})
    assert deltamatch.count(df, "triangle", source="src", target="dst", backend="cpu") == 1
    assert deltamatch.matches(df, "triangle", source="src", target="dst", backend="cpu") == [("a", "b", "c")]


def test_file_path_input(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("# a square with one chord\n1 2\n2 3\n3 4\n4 1\n1 3\n")
    assert deltamatch.count(path, "triangle", backend="cpu") == 2
    assert deltamatch.count(str(path), "4-cycle", induced=True, backend="cpu") == 0


def test_mixed_id_kinds_are_refused_naming_the_item():
    m = deltamatch.Matcher(backend="cpu")
    m.load([(1, 2)])
    with pytest.raises(VertexIdError, match=r"insert: this graph's vertices are named by integers"):
        m.apply(insert=[("a", "b")])
    with pytest.raises(VertexIdError, match=r"graph\[1\]: .*got 2.5"):
        deltamatch.count([(1, 2), (2, 2.5)], "triangle")


def test_bad_pattern_is_a_pattern_error():
    with pytest.raises(PatternError, match="unknown pattern name"):
        deltamatch.count([(1, 2)], "pentagon")


def test_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="unknown backend"):
        deltamatch.Matcher(backend="tpu")


def test_version_is_the_package_version():
    from importlib.metadata import version

    assert deltamatch.__version__ == version("deltamatch")


def test_doctests_pass():
    for module in (api, sys.modules["deltamatch.scheduler.names"]):
        failed, tried = doctest.testmod(module)
        assert tried > 0 and failed == 0


def test_library_imports_no_service_stack():
    code = ("import sys, deltamatch; deltamatch.count([(1, 2), (2, 3), (3, 1)], 'triangle', backend='cpu'); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'ray', 'fastapi', 'matplotlib', "
            "'uvicorn', 'httpx'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_csv_file_of_names_with_named_columns(tmp_path):
    path = tmp_path / "mail.csv"
    path.write_text('when,sender,recipient\n1,"Lee, Ann",bo@x.org\n2,bo@x.org,cy\n3,cy,"Lee, Ann"\n')
    rows = deltamatch.matches(path, "triangle", source="sender", target="recipient", backend="cpu")
    assert rows == [("Lee, Ann", "bo@x.org", "cy")]


@pytest.mark.gpu
@pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA device")
@pytest.mark.parametrize("labels", ["int", "str"])
def test_cuda_backend_agrees_with_the_cpu(labels):
    g = random_graph(8, labels)
    for name, induced in (("triangle", False), ("4-cycle", True), ("house", False)):
        assert deltamatch.matches(g, name, induced=induced, backend="cuda") == \
            deltamatch.matches(g, name, induced=induced, backend="cpu")
    gpu, cpu = deltamatch.Matcher(backend="cuda"), deltamatch.Matcher(backend="cpu")
    assert gpu.backend == "cuda"
    for m in (gpu, cpu):
        m.load(g)
        m.register("diamond")
    nodes = sorted(g)
    batch = {"insert": [(nodes[i], nodes[-1 - i]) for i in range(5)], "delete": list(g.edges)[:5]}
    assert gpu.apply(**batch) == cpu.apply(**batch)
