"""The numba CPU engine: static counts and listings against two oracles, shared vs per-edge plans."""

from __future__ import annotations

import networkx as nx
import numba
import numpy as np
import pytest

from deltamatch.bench.rmat import rmat_edges
from deltamatch.kernels import cpu_engine
from deltamatch.kernels.plan_table import TaskList, memo_plans
from deltamatch.kernels.reference import reference_matches
from deltamatch.scheduler.patterns import BUILTIN_PATTERNS, parse_pattern
from deltamatch.scheduler.plans import compile_plans, per_edge_plans, shared_plans, static_plan
from deltamatch.scheduler.tasks import NEW, OLD, batch_tasks
from deltamatch.workers.graph import DynamicGraph

ATLAS = [g for g in nx.graph_atlas_g() if g.number_of_edges() > 0]


def _graph(edges) -> DynamicGraph:
    g = DynamicGraph()
    g.apply(g.normalize(np.asarray(list(edges), dtype=np.int64).reshape(-1, 2), []))
    return g


def _static(g: DynamicGraph, pattern, hoist: bool = True) -> tuple[int, set]:
    table = compile_plans(pattern, [static_plan(pattern, hoist)])
    tasks = TaskList.static(g.internal_edges())
    view = g.batch_view(np.zeros((0, 2), np.int32))
    counts = cpu_engine.count_tasks(g.view(), table, tasks, view)
    rows = cpu_engine.list_tasks(g.view(), table, tasks, view, counts)
    g.release(view)
    listed = cpu_engine.canonical_rows(g.vertices.external[rows], table.automorphisms)
    return int(counts.sum()), {tuple(map(int, r)) for r in listed}


@pytest.mark.parametrize("induced", [False, True], ids=["edge", "induced"])
@pytest.mark.parametrize("name", BUILTIN_PATTERNS)
def test_static_count_and_listing_equal_reference_on_atlas_graphs(name, induced):
    """All atlas graphs (every 9th) side by side as one data graph; a connected pattern's
    matches stay inside one of them, so the reference runs per graph."""
    p = parse_pattern(name, induced=induced)
    graphs = [g for g in ATLAS if g.number_of_nodes() >= p.k][::9]
    union, want = [], set()
    for i, g in enumerate(graphs):
        shift = 8 * i
        union += [(u + shift, v + shift) for u, v in g.edges]
        want |= {tuple(x + shift for x in m) for m in reference_matches(g.edges, p.edges, p.k, induced)}
    count, listed = _static(_graph(union), p)
    assert count == len(want) and listed == want


@pytest.mark.parametrize("name", ["triangle", "4-cycle", "diamond", "house", "5-cycle"])
def test_static_count_equals_vf2_on_real_small_graphs(name):
    p = parse_pattern(name)
    pg = nx.Graph(list(p.edges))
    for g in (nx.karate_club_graph(), nx.florentine_families_graph()):
        g = nx.convert_node_labels_to_integers(g)
        gm = nx.algorithms.isomorphism.GraphMatcher(g, pg)
        want = sum(1 for _ in gm.subgraph_monomorphisms_iter()) // p.automorphisms.shape[0]
        assert _static(_graph(g.edges), p)[0] == want


@pytest.mark.parametrize("pattern", [[(0, 1)], "triangle", "diamond", "house"],
                         ids=["edge", "triangle", "diamond", "house"])
def test_listing_with_a_limit_keeps_the_first_rows_only(pattern):
    p = parse_pattern(pattern)
    g = _graph(rmat_edges(8, edge_factor=8, seed=3))
    table = compile_plans(p, [static_plan(p)])
    tasks = TaskList.static(g.internal_edges())
    view = g.batch_view(np.zeros((0, 2), np.int32))
    counts = cpu_engine.count_tasks(g.view(), table, tasks, view)
    whole = cpu_engine.list_tasks(g.view(), table, tasks, view, counts)
    inside = int(counts[: np.argmax(counts) + 1].sum()) - 1  # ends inside the largest task
    for limit in (0, 1, inside, whole.shape[0], whole.shape[0] + 5):
        got = cpu_engine.list_tasks(g.view(), table, tasks, view, counts, limit=limit)
        np.testing.assert_array_equal(got, whole[:limit])
    assert counts.max() > 1 or p.k == 2  # beyond an edge, `inside` ends within a task


def test_canonical_rows_pick_the_smallest_relabelling_and_sort():
    auts = parse_pattern("4-cycle").automorphisms.astype(np.int32)
    rows = np.array([[9, 4, 7, 2], [3, 1, 2, 0]], dtype=np.int64)
    assert cpu_engine.canonical_rows(rows, auts).tolist() == [[0, 2, 1, 3], [2, 7, 4, 9]]


def _batch_setup(scale: int = 9, edge_factor: int = 8):
    edges = rmat_edges(scale, edge_factor=edge_factor, seed=4)
    rng = np.random.default_rng(1)
    edges = edges[rng.permutation(edges.shape[0])]
    g = _graph(edges[:-300])
    batch = g.normalize(edges[-300:], edges[:150])
    return g, batch


def _side(g, batch, pattern, plans, side, work=None, options=None):
    table = compile_plans(pattern, plans)
    tasks = batch_tasks(table, batch.changed, batch.deleted.shape[0], side)
    view = g.batch_view(batch.changed)
    counts = cpu_engine.count_tasks(g.view(), table, tasks, view, pattern.induced, work=work, options=options)
    rows = cpu_engine.list_tasks(g.view(), table, tasks, view, counts, pattern.induced)
    g.release(view)
    return int(counts.sum()), {
        tuple(map(int, r)) for r in cpu_engine.canonical_rows(rows, table.automorphisms)
    }


@pytest.mark.parametrize("induced", [False, True], ids=["edge", "induced"])
@pytest.mark.parametrize("name", ["triangle", "tailed-triangle", "4-cycle", "diamond", "4-clique", "house"])
def test_shared_and_per_edge_plans_give_identical_deltas(name, induced):
    p = parse_pattern(name, induced=induced)
    g, batch = _batch_setup(7, 4)
    assert _side(g, batch, p, shared_plans(p), OLD) == _side(g, batch, p, per_edge_plans(p), OLD)
    g.apply(batch)
    assert _side(g, batch, p, shared_plans(p), NEW) == _side(g, batch, p, per_edge_plans(p), NEW)


@pytest.mark.parametrize("name", ["triangle", "4-cycle", "diamond", "4-clique", "5-clique"])
def test_shared_plans_do_less_work_than_per_edge_plans(name):
    p = parse_pattern(name)
    g, batch = _batch_setup()
    g.apply(batch)
    shared, per_edge = np.zeros(2, np.int64), np.zeros(2, np.int64)
    testing = cpu_engine.EngineOptions(set_count=False)  # work counts every candidate tested
    assert (
        _side(g, batch, p, shared_plans(p), NEW, shared, testing)[0]
        == _side(g, batch, p, per_edge_plans(p), NEW, per_edge, testing)[0]
    )
    assert shared.sum() < per_edge.sum()


def test_work_counter_is_optional_and_accumulates():
    p = parse_pattern("triangle")
    g = _graph([(0, 1), (1, 2), (2, 0), (2, 3)])
    table = compile_plans(p, [static_plan(p)])
    tasks = TaskList.static(g.internal_edges())
    view = g.batch_view(np.zeros((0, 2), np.int32))
    work = np.zeros(2, np.int64)
    assert cpu_engine.count_tasks(g.view(), table, tasks, view).sum() == 1
    cpu_engine.count_tasks(g.view(), table, tasks, view, work=work)
    once = work.copy()
    cpu_engine.count_tasks(g.view(), table, tasks, view, work=work)
    assert once[0] > 0 and np.array_equal(work, 2 * once)


def test_parallel_and_serial_paths_agree():
    p = parse_pattern("diamond")
    g = _graph(rmat_edges(10, edge_factor=8, seed=2))
    table = compile_plans(p, [static_plan(p)])
    tasks = TaskList.static(g.internal_edges())
    view = g.batch_view(np.zeros((0, 2), np.int32))
    parallel = cpu_engine.count_tasks(g.view(), table, tasks, view)
    serial = np.concatenate(
        [
            cpu_engine.count_tasks(g.view(), table, tasks.take(np.arange(i, min(i + 100, tasks.size))), view)
            for i in range(0, tasks.size, 100)
        ]
    )
    assert tasks.size > 1000 and np.array_equal(parallel, serial)


@pytest.mark.parametrize("induced", [False, True], ids=["edge", "induced"])
@pytest.mark.parametrize("name", BUILTIN_PATTERNS)
def test_hoisted_and_greedy_plans_give_identical_results(name, induced):
    """Static counts and listings, and both sides of a mixed batch, with hoisting on and off."""
    p = parse_pattern(name, induced=induced)
    g, batch = _batch_setup(7, 4)
    assert _static(g, p, hoist=True) == _static(g, p, hoist=False)
    assert _side(g, batch, p, shared_plans(p, True), OLD) == _side(g, batch, p, shared_plans(p, False), OLD)
    g.apply(batch)
    assert _side(g, batch, p, shared_plans(p, True), NEW) == _side(g, batch, p, shared_plans(p, False), NEW)


@pytest.mark.parametrize("name", ["house", "P1", "P4"])
def test_hoisting_reads_fewer_candidates(name):
    p = parse_pattern(name)
    g = _graph(rmat_edges(8, edge_factor=8, seed=3))
    tasks = TaskList.static(g.internal_edges())
    view = g.batch_view(np.zeros((0, 2), np.int32))
    hoisted, greedy = np.zeros(2, np.int64), np.zeros(2, np.int64)
    # The greedy orders end in a last level the memo would size once per task (`memo_plans`).
    per_prefix = cpu_engine.EngineOptions(last_memo=False)
    counts = [
        cpu_engine.count_tasks(g.view(), compile_plans(p, [static_plan(p, h)]), tasks, view, work=w,
                               options=per_prefix).sum()
        for h, w in ((True, hoisted), (False, greedy))
    ]
    assert counts[0] == counts[1] > 0 and 2 * hoisted[0] < greedy[0]


def _random_batch_case(seed: int):
    """A G(n, p) graph and a mixed batch: deletions, insertions, and a whole 4-clique inserted."""
    rng = np.random.default_rng(seed)
    n = 12
    pairs = np.array([(u, v) for u in range(n) for v in range(u + 1, n)], dtype=np.int64)
    present = rng.random(pairs.shape[0]) < 0.4
    old = pairs[present]
    delete = old[rng.random(old.shape[0]) < 0.25]
    insert = pairs[~present][rng.random(int((~present).sum())) < 0.2]
    clique = np.array([(u, v) for u in range(4) for v in range(u + 1, 4)], dtype=np.int64)
    return old, np.concatenate([insert, clique]), delete


def _switched(g, table, tasks, view, switch: str, induced: bool = False):
    """(per-task counts, work counters) with `EngineOptions`' `switch` off, then on (the default)."""
    counts, work = [], []
    for options in (cpu_engine.EngineOptions(**{switch: False}), cpu_engine.EngineOptions()):
        work.append(np.zeros(2, np.int64))
        counts.append(cpu_engine.count_tasks(g.view(), table, tasks, view, induced, options=options,
                                             work=work[-1]))
    return counts, work


def _sides(g, batch, table):
    """(tasks, batch view) of the old side of `batch` on g as it is, then, g having applied the
    batch, of the new side; the view is released afterwards."""
    view = g.batch_view(batch.changed)
    try:
        for side in (OLD, NEW):
            if side == NEW:
                g.apply(batch)
            yield batch_tasks(table, batch.changed, batch.deleted.shape[0], side), view
    finally:
        g.release(view)


def _delta_counts(old, insert, delete, pattern, options) -> tuple[int, int]:
    g = _graph(old)
    batch = g.normalize(insert, delete)
    table = compile_plans(pattern, shared_plans(pattern))
    counts = []
    for tasks, view in _sides(g, batch, table):
        counts.append(int(cpu_engine.count_tasks(g.view(), table, tasks, view, pattern.induced,
                                                 options=options).sum()))
    return counts[0], counts[1]


@pytest.mark.parametrize("set_count", [False, True], ids=["testing", "set-count"])
@pytest.mark.parametrize("induced", [False, True], ids=["edge", "induced"])
@pytest.mark.parametrize("name", ["triangle", "tailed-triangle", "4-cycle", "diamond", "4-clique", "house",
                                  "0-1,1-2,2-3,3-0,0-4,1-4,2-4"])  # the last: a last level with three rows
def test_batch_deltas_equal_reference_on_random_graphs(name, induced, set_count):
    """Removed and added counts of mixed batches against the oracle's M(G_old) and M(G_new)."""
    p = parse_pattern(name, induced=induced)
    options = cpu_engine.EngineOptions(set_count=set_count)
    for seed in range(3):
        old, insert, delete = _random_batch_case(seed)
        keep = {tuple(e) for e in old.tolist()} - {tuple(e) for e in delete.tolist()}
        # An induced match is its vertex set (SPEC §1): its listed tuple may change while it stays.
        key = frozenset if induced else tuple
        before = {key(m) for m in reference_matches(map(tuple, old), p.edges, p.k, induced)}
        new = keep | {tuple(e) for e in insert.tolist()}
        after = {key(m) for m in reference_matches(new, p.edges, p.k, induced)}
        assert _delta_counts(old, insert, delete, p, options) == (len(before - after), len(after - before))


def _joint_sides(g, batch, table):
    """(per-task counts, listed rows) of both sides of `batch` counted jointly on G_old ∪ I, then
    (g having applied the deletions) each side on its own graph: G_old for the removal tasks, G_new
    for the insertion tasks; and the removal tasks' counts on G_old ∪ I without the joint rule."""
    n_del = batch.deleted.shape[0]
    old_tasks, new_tasks = (batch_tasks(table, batch.changed, n_del, side) for side in (OLD, NEW))
    both = old_tasks.followed_by(new_tasks)
    insertions, deletions = batch.halves(insertions_first=True)
    view = g.batch_view(batch.changed)
    try:
        g.apply(insertions)
        joint = view.joint(n_del)
        counts = cpu_engine.count_tasks(g.view(), table, both, joint)
        joint_result = (counts, cpu_engine.list_tasks(g.view(), table, both, joint, counts))
        unruled = cpu_engine.count_tasks(g.view(), table, old_tasks, view)
        g.apply(deletions)
        new = cpu_engine.count_tasks(g.view(), table, new_tasks, view)
        new_rows = cpu_engine.list_tasks(g.view(), table, new_tasks, view, new)
    finally:
        g.release(view)
    return joint_result, (new, new_rows), old_tasks, unruled


@pytest.mark.parametrize("name", BUILTIN_PATTERNS)
def test_a_joint_count_finds_each_side_as_on_its_own_graph(name):
    """Both sides of mixed batches in one run on G_old ∪ I: every task's count and rows equal the
    removal side's on G_old and the insertion side's on G_new."""
    p = parse_pattern(name)
    table = compile_plans(p, shared_plans(p))
    insertions_seen = 0  # removal-side matches the joint rule kept out: what the test can catch
    for seed in range(3):
        old, insert, delete = _random_batch_case(seed)
        g, g_old = _graph(old), _graph(old)
        batch = g.normalize(insert, delete)
        (counts, rows), (new, new_rows), old_tasks, unruled = _joint_sides(g, batch, table)
        view = g_old.batch_view(batch.changed)
        removed = cpu_engine.count_tasks(g_old.view(), table, old_tasks, view)
        removed_rows = cpu_engine.list_tasks(g_old.view(), table, old_tasks, view, removed)
        g_old.release(view)
        assert counts.tolist() == removed.tolist() + new.tolist()
        assert rows.tolist() == removed_rows.tolist() + new_rows.tolist()
        assert new.sum() > 0 or name not in ("triangle", "4-clique")  # the inserted 4-clique
        insertions_seen += int(unruled.sum() - removed.sum())
    assert insertions_seen > 0


def test_a_joint_count_refuses_induced_plans():
    p = parse_pattern("diamond", induced=True)
    table = compile_plans(p, shared_plans(p))
    g = _graph([(0, 1), (1, 2)])
    batch = g.normalize([(0, 2)], [(1, 2)])
    view = g.batch_view(batch.changed)
    with pytest.raises(ValueError, match="edge-induced"):
        cpu_engine.count_tasks(g.view(), table, batch_tasks(table, batch.changed, 1, NEW), view.joint(1))
    g.release(view)


@pytest.mark.parametrize("induced", [False, True], ids=["edge", "induced"])
@pytest.mark.parametrize("name", ["4-cycle", "house", "5-cycle", "P4"])
def test_seed_swap_keeps_every_task_count(name, induced):
    """Listing offsets come from per-task counts, so a reversed seed must find as many matches."""
    p = parse_pattern(name, induced=induced)
    g, batch = _batch_setup(8, 6)
    g.apply(batch)
    table = compile_plans(p, shared_plans(p))
    tasks = batch_tasks(table, batch.changed, batch.deleted.shape[0], NEW)
    view = g.batch_view(batch.changed)
    counts, _ = _switched(g, table, tasks, view, "seed_swap", induced)
    g.release(view)
    assert counts[0].sum() > 0 and np.array_equal(counts[0], counts[1])


COUNT_PATHS = {  # switch -> (the row length past which it acts, patterns it is tried on)
    "seed_bits": ("_BITS_MIN_DEGREE", ["4-cycle", "diamond", "house", "P4"]),
    "drive_short": ("_GALLOP_RATIO", ["diamond", "house", "4-clique", "0-1,1-2,2-3,3-0,0-4,1-4,2-4"]),
    "set_count": ("_SET_COUNT_MIN", ["triangle", "4-cycle", "diamond", "4-clique", "house", "P4"]),
}


@pytest.mark.parametrize("induced", [False, True], ids=["edge", "induced"])
@pytest.mark.parametrize(("switch", "name"), [(s, n) for s, (_, names) in COUNT_PATHS.items() for n in names])
def test_count_paths_keep_every_task_count_on_hub_rows(switch, name, induced):
    """Rows past the switch's threshold, on both sides of a mixed batch, the switch on and off."""
    p = parse_pattern(name, induced=induced)
    g, batch = _batch_setup(9, 8)
    assert g.max_degree >= 4 * getattr(cpu_engine, COUNT_PATHS[switch][0])
    table = compile_plans(p, shared_plans(p))
    for tasks, view in _sides(g, batch, table):
        counts, _ = _switched(g, table, tasks, view, switch, induced)
        assert np.array_equal(counts[0], counts[1])
        if switch == "set_count":
            assert counts[0].sum() > 0


def test_triangle_tasks_counted_by_pair_intersection_keep_every_task_count():
    """`_triangle_count` against the search (set_count off), both sides of a mixed batch: a
    low-degree vertex loses every edge and gains a star (many batch partners to walk, of ranks
    on both sides of each task's) among scattered pairs."""
    p = parse_pattern("triangle")

    def most_triangles(g, low):
        rows = [set(g.pool[g.offsets[v]:g.offsets[v] + g.degree[v]].tolist()) for v in range(len(g.vertices))]
        return max(low, key=lambda v: sum(len(rows[v] & rows[x]) for x in rows[v]))

    g, batch = _star_batch_case(1, most_triangles)
    table = compile_plans(p, shared_plans(p))
    for tasks, view in _sides(g, batch, table):
        counts, _ = _switched(g, table, tasks, view, "set_count")
        assert counts[0].sum() > 0 and np.array_equal(counts[0], counts[1])


def test_fused_plans_are_the_four_vertex_plans_whose_last_level_is_level_2s_row_against_one_seed_row():
    cycle, diamond = parse_pattern("4-cycle"), parse_pattern("diamond")
    assert cpu_engine.fused_plans(compile_plans(cycle, shared_plans(cycle))).tolist() == [1]
    assert cpu_engine.fused_plans(compile_plans(diamond, shared_plans(diamond))).tolist() == [1, 1, 0]
    for name in ("4-cycle", "diamond"):  # induced: the last level also tests the other seed's row
        p = parse_pattern(name, induced=True)
        assert not cpu_engine.fused_plans(compile_plans(p, shared_plans(p))).any()
    for name in ("triangle", "4-clique", "house", "tailed-triangle"):
        p = parse_pattern(name)
        assert not cpu_engine.fused_plans(compile_plans(p, shared_plans(p))).any()


@pytest.mark.parametrize("plans", [shared_plans, per_edge_plans], ids=["shared", "per-edge"])
@pytest.mark.parametrize("name", ["4-cycle", "diamond", "tailed-triangle"])
def test_fuse_last_keeps_every_task_count_on_hub_rows(name, plans):
    """Both sides of a mixed batch on hub rows (level-2 rows from shorter than the seed's to
    many times longer: the bit-set scan and the gallop), the fused count on and off: the same
    per-task counts, and different work where a plan is fused (the path was taken)."""
    p = parse_pattern(name)
    g, batch = _batch_setup(9, 8)
    table = compile_plans(p, plans(p))
    fused = cpu_engine.fused_plans(table)
    for tasks, view in _sides(g, batch, table):
        counts, work = _switched(g, table, tasks, view, "fuse_last")
        assert counts[0].sum() > 0 and np.array_equal(counts[0], counts[1])
        assert (work[0][1] != work[1][1]) == bool(fused.any())


def _star_batch_case(seed: int, centre=lambda g, low: low[0]):
    """A graph (RMAT-9, edges permuted by `seed`) and a mixed batch in which a low-degree vertex,
    `centre(g, low)` of the vertices `low` of degree 4-12, loses every edge and gains a star (many
    batch partners, of ranks on both sides of each task's) among scattered pairs."""
    edges = rmat_edges(9, edge_factor=8, seed=4)
    edges = edges[np.random.default_rng(seed).permutation(edges.shape[0])]
    g = _graph(edges[:-300])
    c = int(centre(g, [int(v) for v in np.flatnonzero((g.degree >= 4) & (g.degree <= 12))]))
    ext = g.vertices.external
    star = np.array([(int(ext[c]), int(x)) for x in ext[:150] if x != ext[c]])
    own = np.array([(int(ext[c]), int(ext[x])) for x in g.pool[g.offsets[c]:g.offsets[c] + g.degree[c]]])
    return g, g.normalize(np.concatenate([edges[-300:], star]), np.concatenate([own, edges[:150]]))


@pytest.mark.parametrize("name", ["4-cycle", "diamond"])
def test_fuse_last_keeps_every_task_count_with_many_batch_partners(name):
    """The fused count's exclusions (the seed part's once per task, each level-2 vertex's pairs)
    against the search's, on both sides of `_star_batch_case`."""
    p = parse_pattern(name)
    g, batch = _star_batch_case(2)
    table = compile_plans(p, shared_plans(p))
    for tasks, view in _sides(g, batch, table):
        counts, _ = _switched(g, table, tasks, view, "fuse_last")
        assert counts[0].sum() > 0 and np.array_equal(counts[0], counts[1])


# RMAT scale of the hub-row graph of each memo-plan pattern.  The 6-cycle's counts grow about as
# a hub's degree cubed: RMAT-8's hubs (degree ~100) take every branch of `_memo_count`,
# `_reverse_count` and `_seed_side` that RMAT-9's (~190) do, three to six times faster.
MEMO_SCALES = {"house": 9, "5-cycle": 9, "0-1,1-2,2-3,3-4,4-5,5-0": 8}


@pytest.mark.parametrize("slots", [None, 4], ids=["memo", "memo-full"])
@pytest.mark.parametrize("plans", [shared_plans, per_edge_plans], ids=["shared", "per-edge"])
@pytest.mark.parametrize("name", MEMO_SCALES)
def test_last_memo_keeps_every_task_count_on_hub_rows(name, plans, slots, monkeypatch):
    """Both sides of a mixed batch on hub rows, the memo on and off.  Per-edge plans bring
    bounds on the seed into the last level; the 6-cycle has a middle position not adjacent to
    level k-2 (tested per w); a 4-slot memo fills at once (sizes then computed, not stored)."""
    if slots is not None:
        monkeypatch.setattr(cpu_engine, "_MEMO_MAX_SLOTS", slots)
    p = parse_pattern(name)
    g, batch = _batch_setup(MEMO_SCALES[name], 8)
    table = compile_plans(p, plans(p))
    assert memo_plans(table).any()
    for tasks, view in _sides(g, batch, table):
        counts, work = _switched(g, table, tasks, view, "last_memo")
        assert counts[0].sum() > 0 and np.array_equal(counts[0], counts[1])
        if slots is None:  # the memo answers repeats without reading the last level's rows
            memo = memo_plans(table)[tasks.plan] != 0
            if not memo.all():  # else the work above is the memo tasks' already
                _, work = _switched(g, table, tasks.take(np.flatnonzero(memo)), view, "last_memo")
            assert 2 * work[1][0] < work[0][0]


@pytest.mark.parametrize("plans", [shared_plans, per_edge_plans], ids=["shared", "per-edge"])
@pytest.mark.parametrize("name", MEMO_SCALES)
def test_reverse_last_keeps_every_task_count_on_hub_rows(name, plans):
    """Both sides of a mixed batch on hub rows, counting from the seed side on and off: the
    same per-task counts, and the work changes (the path was taken)."""
    p = parse_pattern(name)
    g, batch = _batch_setup(MEMO_SCALES[name], 8)
    table = compile_plans(p, plans(p))
    for tasks, view in _sides(g, batch, table):
        counts, work = _switched(g, table, tasks, view, "reverse_last")
        assert counts[0].sum() > 0 and np.array_equal(counts[0], counts[1])
        assert not np.array_equal(work[0], work[1])


def test_level2_shared_marks_plans_whose_level_2_is_the_seeds_common_neighbours():
    diamond = parse_pattern("diamond")
    assert cpu_engine.level2_shared(compile_plans(diamond, shared_plans(diamond))).tolist() == [1, 1, 1]
    # Only some plans have it (house), a single plan (4-clique), or none (4-cycle): no reuse.
    for name in ("house", "4-clique", "4-cycle"):
        p = parse_pattern(name)
        assert not cpu_engine.level2_shared(compile_plans(p, shared_plans(p))).any()


# RMAT scale of the hub-row graph of each pattern.  No plan of P4 shares level 2, so its case
# shows the switch changes nothing, as RMAT-8's hubs (degree ~110) show it too: its 6-vertex
# counts on one thread cost a sixth of RMAT-9's.
LEVEL2_SCALES = {"diamond": 9, "4-clique": 9, "house": 9, "0-1,1-2,2-3,3-0,0-4,1-4,2-4": 9, "P4": 8}


@pytest.mark.parametrize("induced", [False, True], ids=["edge", "induced"])
@pytest.mark.parametrize("name", LEVEL2_SCALES)
def test_reuse_level2_keeps_every_task_count_on_hub_rows(name, induced):
    """Both sides of a mixed batch and a static count on hub rows, level 2 shared and not: the
    same per-task counts; where a seed pair has several such plans, less work.  One thread:
    only the serial path runs a seed pair's tasks together."""
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        _reuse_level2_case(name, induced)
    finally:
        numba.set_num_threads(threads)


def _reuse_level2_case(name: str, induced: bool) -> None:
    p = parse_pattern(name, induced=induced)
    g, batch = _batch_setup(LEVEL2_SCALES[name], 8)
    table = compile_plans(p, shared_plans(p))
    several = int(cpu_engine.level2_shared(table).sum()) > 1
    for tasks, view in _sides(g, batch, table):
        counts, work = _switched(g, table, tasks, view, "reuse_level2", induced)
        assert counts[0].sum() > 0 and np.array_equal(counts[0], counts[1])
        assert (work[1][0] < work[0][0]) == several
    static = compile_plans(p, [static_plan(p)])
    tasks = TaskList.static(g.internal_edges())
    empty = g.batch_view(np.zeros((0, 2), np.int32))
    counts, _ = _switched(g, static, tasks, empty, "reuse_level2")
    g.release(empty)
    assert np.array_equal(counts[0], counts[1])


def test_canonical_rows_same_on_one_thread_and_in_parallel():
    """Small inputs take the serial kernel, large ones the parallel one: the same listed forms."""
    auts = parse_pattern("4-cycle").automorphisms.astype(np.int32)
    rows = np.random.default_rng(3).integers(0, 1000, size=(20_000, 4))
    assert rows.shape[0] * auts.shape[0] >= cpu_engine._CANONICAL_PARALLEL_MIN
    assert 100 * auts.shape[0] < cpu_engine._CANONICAL_PARALLEL_MIN
    pieces = np.concatenate([cpu_engine.canonical_rows(p, auts) for p in np.array_split(rows, 200)])
    whole = cpu_engine.canonical_rows(rows, auts)
    assert np.array_equal(whole, pieces[np.lexsort(pieces.T[::-1])])
