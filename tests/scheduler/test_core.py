"""SchedulerCore against the brute-force reference: exact deltas and totals, version after version."""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest

from deltamatch.kernels.reference import reference_matches
from deltamatch.scheduler.patterns import BUILTIN_PATTERNS, parse_pattern
from deltamatch.workers.graph import GraphInputError

NAMES = list(BUILTIN_PATTERNS)
# (shared plans?, replicas): every variant must give the same, exact answer.
VARIANTS = [(True, 1), (True, 3), (False, 1), (False, 3)]


def _key(rows, induced: bool) -> set:
    """A match's identity: its listed tuple (edge-induced) or its vertex set (induced, SPEC §1)."""
    return {frozenset(map(int, r)) if induced else tuple(map(int, r)) for r in rows}


def _norm(edges) -> set[tuple[int, int]]:
    return {(min(u, v), max(u, v)) for u, v in edges}


def _random_batch(rng: random.Random, edges: set, pattern, nv: int, last_deleted: list) -> tuple[list, list]:
    """A mixed batch: random pairs, a whole planted pattern, several edges of one match,
    re-insertions, no-ops (present inserts, absent deletes), duplicates, pairs in both lists."""
    ins, dele = [], []
    present = sorted(edges)
    for _ in range(rng.randint(0, 4)):
        u, v = rng.sample(range(nv), 2)
        (ins if rng.random() < 0.6 else dele).append((u, v))
    if rng.random() < 0.5:
        image = rng.sample(range(nv), pattern.k)
        ins += [(image[a], image[b]) for a, b in pattern.edges]
    if present and rng.random() < 0.6:
        matches = sorted(reference_matches(edges, pattern.edges, pattern.k, pattern.induced))
        if matches:
            m = rng.choice(matches)
            in_match = [(m[a], m[b]) for a, b in pattern.edges if _norm([(m[a], m[b])]) <= edges]
            dele += rng.sample(in_match, min(len(in_match), rng.randint(2, 3)))
    if last_deleted and rng.random() < 0.5:
        ins += rng.sample(last_deleted, min(2, len(last_deleted)))
    if present:
        ins.append(rng.choice(present))  # no-op insert
        u, v = rng.choice(present)
        dele.append((v, u))  # reversed orientation
    if ins and rng.random() < 0.5:
        dele.append(ins[0])  # in both lists: ends present
    if ins:
        ins.append(ins[-1][::-1])  # duplicate, other orientation
    rng.shuffle(ins)
    rng.shuffle(dele)
    return ins, dele


def _scenario(name: str, induced: bool, seed: int, nv: int, batches: int, make_core) -> None:
    rng = random.Random(seed)
    pattern = parse_pattern(name, induced=induced)
    edges = {(u, v) for u in range(nv) for v in range(u + 1, nv) if rng.random() < 0.3}
    cores = [make_core(replicas=r, shared=s) for s, r in VARIANTS]
    for core in cores:
        core.load(sorted(edges))
    pids = [core.register(pattern).id for core in cores]
    old = reference_matches(edges, pattern.edges, pattern.k, induced)
    for core, pid in zip(cores, pids, strict=True):
        assert core.patterns[pid].total == len(old)
    last_deleted: list = []
    for version in range(2, batches + 2):
        ins, dele = _random_batch(rng, edges, pattern, nv, last_deleted)
        new_edges = (edges - _norm(dele)) | _norm(ins)
        new = reference_matches(new_edges, pattern.edges, pattern.k, induced)
        want_added = _key(new, induced) - _key(old, induced)
        want_removed = _key(old, induced) - _key(new, induced)
        for core, pid in zip(cores, pids, strict=True):
            out = core.apply(ins, dele)
            d = out.deltas[pid]
            assert out.version == version
            assert out.inserted == len(new_edges - edges) and out.deleted == len(edges - new_edges)
            assert (d.added_count, d.removed_count, d.total) == (len(want_added), len(want_removed), len(new))
            assert _key(d.added, induced) == want_added
            assert _key(d.removed, induced) == want_removed
            assert not d.truncated
        last_deleted = sorted(edges - new_edges)
        edges, old = new_edges, new
    for core, pid in zip(cores, pids, strict=True):
        listed = {tuple(map(int, r)) for r in core.matches(pid)}
        assert listed == old  # listed form is byte-for-byte the reference's


@pytest.mark.parametrize("induced", [False, True], ids=["edge", "induced"])
@pytest.mark.parametrize("name", NAMES)
def test_incremental_deltas_match_reference(name, induced, make_core):
    k = len({x for e in BUILTIN_PATTERNS[name] for x in e})
    _scenario(name, induced, seed=k, nv=7 if k <= 5 else 8, batches=6, make_core=make_core)


@pytest.mark.parametrize("induced", [False, True], ids=["edge", "induced"])
def test_batch_forming_whole_patterns_counts_each_match_once(induced, make_core):
    core = make_core()
    pid = core.register(parse_pattern("4-clique", induced=induced)).id
    k6 = [(u, v) for u in range(6) for v in range(u + 1, 6)]
    out = core.apply(k6, [])
    assert out.deltas[pid].added_count == 15  # C(6, 4), each found once though it holds 6 new edges
    out = core.apply([], k6[:3])
    assert out.deltas[pid].removed_count == len(
        reference_matches(k6, BUILTIN_PATTERNS["4-clique"], 4, induced)
        - reference_matches(k6[3:], BUILTIN_PATTERNS["4-clique"], 4, induced)
    )


def test_induced_insert_can_remove_and_delete_can_add(make_core):
    core = make_core()
    pid = core.register(parse_pattern("4-path", induced=True)).id
    core.apply([(0, 1), (1, 2), (2, 3)], [])
    chord = core.apply([(0, 3)], [])
    assert (chord.deltas[pid].added_count, chord.deltas[pid].removed_count) == (0, 1)
    cut = core.apply([], [(0, 3)])
    assert (cut.deltas[pid].added_count, cut.deltas[pid].removed_count) == (1, 0)


@pytest.mark.parametrize("name", ["triangle", "4-cycle", "diamond", "house"])
def test_totals_agree_with_networkx_on_a_random_stream(name, make_core):
    rng = np.random.default_rng(7)
    pattern = parse_pattern(name)
    core = make_core(replicas=2)
    pid = core.register(pattern).id
    g = nx.Graph()
    pg = nx.Graph(list(pattern.edges))
    aut = len(list(nx.algorithms.isomorphism.GraphMatcher(pg, pg).isomorphisms_iter()))
    for _ in range(4):
        ins = rng.integers(0, 30, size=(45, 2))
        ins = ins[ins[:, 0] != ins[:, 1]]
        present = list(g.edges)
        dele = (
            [present[i] for i in rng.choice(len(present), size=min(15, len(present)), replace=False)]
            if present
            else []
        )
        out = core.apply(ins, dele)
        g.remove_edges_from(dele)
        g.add_edges_from(ins.tolist())
        gm = nx.algorithms.isomorphism.GraphMatcher(g, pg)
        assert out.deltas[pid].total * aut == sum(1 for _ in gm.subgraph_monomorphisms_iter())


def test_registering_later_starts_from_the_static_count(make_core):
    core = make_core()
    core.apply([(0, 1), (1, 2), (2, 0), (2, 3), (3, 0)], [])
    reg = core.register(parse_pattern("triangle"))
    assert (reg.total, reg.version) == (2, 1)


@pytest.mark.parametrize(
    "insert, delete",
    [
        ([(0, 1), (2, 2)], []),
        ([(0, 1), (-1, 3)], []),
        ([(0, 1), (3, 2**31)], []),
        ([(0, 1)], [(0, 1, 2)]),
        ([(0, 1), ("a", 2)], []),
    ],
    ids=["self-loop", "negative", "oversized", "bad-shape", "not-int"],
)
def test_rejected_batch_changes_nothing(insert, delete, make_core):
    core = make_core(replicas=2)
    pid = core.register(parse_pattern("triangle")).id
    core.apply([(0, 1), (1, 2), (2, 0)], [])
    before = [r.stats() for r in core.pool.replicas] + [core.stats()]
    with pytest.raises(GraphInputError):
        core.apply(insert, delete)
    assert core.version == 1 and core.patterns[pid].total == 1
    assert [r.stats() for r in core.pool.replicas] + [core.stats()] == before
    for replica in core.pool.replicas:
        assert replica.graph.edges().tolist() == [[0, 1], [0, 2], [1, 2]]


def test_listing_cap_keeps_counts_exact(make_core):
    core = make_core(list_limit=5)
    pid = core.register(parse_pattern("triangle")).id
    out = core.apply([(u, v) for u in range(8) for v in range(u + 1, 8)], [])
    d = out.deltas[pid]
    assert (d.added_count, d.added.shape[0], d.truncated) == (56, 5, True)


def test_one_versions_matches_are_listed_once(make_core):
    core = make_core(replicas=2)
    k5 = [(u, v) for u in range(5) for v in range(u + 1, 5)]
    core.apply(k5, [])
    tri = core.register(parse_pattern("triangle")).id
    first = core.matches(tri)
    assert core.matches(tri) is first  # a second page reads the same listing
    core.apply([(0, 5), (1, 5)], [(3, 4)])
    now = k5[:-1] + [(0, 5), (1, 5)]
    again = core.matches(tri)
    assert again is not first
    triangles = reference_matches(now, BUILTIN_PATTERNS["triangle"], 3, False)
    assert {tuple(map(int, r)) for r in again} == triangles
    path = core.register(parse_pattern("4-path")).id
    assert core.matches(path).shape == (len(reference_matches(now, BUILTIN_PATTERNS["4-path"], 4, False)), 4)
    core.unregister(path)
    assert core.matches(tri) is not again  # only the last pattern's listing is kept


def test_a_kept_listing_is_read_only(make_core):
    core = make_core()
    core.apply([(0, 1), (1, 2), (2, 0)], [])
    rows = core.matches(core.register(parse_pattern("triangle")).id)
    with pytest.raises(ValueError, match="read-only"):
        rows[0, 0] = 7


def test_clear_empties_the_graph_as_one_version(make_core):
    core = make_core(replicas=2)
    tri = core.register(parse_pattern("triangle")).id
    core.apply([("a", "b"), ("b", "c"), ("c", "a")], [])
    out = core.clear()
    assert (out.version, out.deleted) == (2, 3)
    d = out.deltas[tri]
    assert (d.added_count, d.removed_count, d.total, d.truncated) == (0, 1, 0, True)
    graphs = [core.stats()] + [r.stats() for r in core.pool.replicas]
    assert all(s.edges == 0 and s.version == 2 for s in graphs)
    assert core.apply([(1, 2), (2, 3), (3, 1)], []).deltas[tri].total == 1  # the other kind of id now


def test_stages_account_for_the_batch_within_its_elapsed_time(make_core):
    core = make_core(replicas=2)
    core.register(parse_pattern("triangle"))
    core.apply([(u, u + 1) for u in range(50)], [])
    out = core.apply([(u, u + 2) for u in range(48)], [(0, 1)])
    stages = out.stages()
    assert set(stages) == {"intake", "allocation", "transport", "graph_update", "matching", "commit", "merge"}
    assert all(s >= 0 for s in stages.values()) and stages["intake"] > 0 and stages["matching"] > 0
    assert sum(stages.values()) <= out.elapsed_ms / 1e3


def test_workers_receive_the_batch_normalized_once_with_its_new_vertices(make_core):
    core = make_core(replicas=2)
    core.apply([(10, 20)], [])
    sent = []
    execute = core.pool.execute
    core.pool.execute = lambda plans, meanwhile=None: sent.append(plans) or execute(plans, meanwhile)
    core.apply([(30, 10), (20, 30), (20, 10)], [])
    (plans,) = sent
    assert all(p.batch is plans[0].batch for p in plans)
    assert plans[0].batch.vertex_base == 2 and plans[0].batch.new_vertices.tolist() == [30]
    assert [r.graph.vertices.external.tolist() for r in core.pool.replicas] == [[10, 20, 30]] * 2
    assert core.stats().edges == 3 == core.pool.replicas[1].stats().edges
