"""DynamicGraph: batches against a set model, normalization, growth, compaction, bad input."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from deltamatch.workers.graph import DynamicGraph, GraphInputError, VertexMap, as_pairs


def _rows_sorted(g: DynamicGraph) -> bool:
    return all(
        np.all(np.diff(g.pool[g.offsets[v] : g.offsets[v] + g.degree[v]]) > 0) for v in range(len(g.vertices))
    )


def test_random_batches_match_a_set_model():
    rng = random.Random(3)
    g = DynamicGraph()
    model: set[tuple[int, int]] = set()
    for _ in range(40):
        ins = [(rng.randrange(60) * 7919, rng.randrange(60) * 7919) for _ in range(rng.randrange(80))]
        ins = [e for e in ins if e[0] != e[1]]
        dele = [e for e in model if rng.random() < 0.2] + [(1, 2)]
        batch = g.normalize(ins, dele)
        g.apply(batch)
        model = (model - {(min(u, v), max(u, v)) for u, v in dele}) | {(min(u, v), max(u, v)) for u, v in ins}
        assert set(map(tuple, g.edges().tolist())) == model
        assert g.num_edges == len(model)
    assert _rows_sorted(g) and g.relocations > 0


def test_normalize_reports_ignored_and_ends_present_when_in_both_lists():
    g = DynamicGraph()
    g.apply(g.normalize([(1, 2), (2, 3)], []))
    b = g.normalize(insert=[(1, 2), (3, 4), (4, 3), (5, 6)], delete=[(2, 3), (9, 9 + 1), (5, 6), (3, 2)])
    ext = np.concatenate([g.vertices.external, b.new_vertices])  # new vertices are named, not yet interned
    assert sorted(tuple(sorted(ext[p])) for p in b.deleted) == [(2, 3)]
    assert sorted(tuple(sorted(ext[p])) for p in b.inserted) == [(3, 4), (5, 6)]
    assert b.ignored == 8 - 3
    assert b.vertex_base == 3 and b.new_vertices.tolist() == [4, 5, 6] and len(g.vertices) == 3
    g.apply(b)
    assert g.edges().tolist() == [[1, 2], [3, 4], [5, 6]]


def test_normalize_assigns_the_ids_intern_would_in_first_seen_order():
    g = DynamicGraph()
    g.apply(g.normalize([(10, 20)], []))
    b = g.normalize([(40, 30), (30, 20), (50, 40)], [])
    mirror = DynamicGraph()
    mirror.vertices.intern(np.array([10, 20]))
    assert mirror.vertices.intern(np.array([30, 40, 20, 30, 40, 50])).tolist() == [2, 3, 1, 2, 3, 4]
    assert b.new_vertices.tolist() == [30, 40, 50]
    g.apply(b)
    assert g.vertices.external.tolist() == [10, 20, 30, 40, 50]
    assert sorted(map(tuple, b.inserted.tolist())) == [(1, 2), (2, 3), (3, 4)]


def test_apply_refuses_a_batch_normalized_against_another_vertex_count():
    g = DynamicGraph()
    b = g.normalize([(1, 2)], [])
    g.apply(g.normalize([(7, 8)], []))
    with pytest.raises(ValueError, match="normalized against 0 vertices"):
        g.apply(b)


def test_vertex_range_grows_on_demand_with_large_ids():
    g = DynamicGraph()
    g.apply(g.normalize([(2**31 - 1, 0), (2**30, 5)], []))
    assert g.edges().tolist() == [[0, 2**31 - 1], [5, 2**30]] and g.num_vertices == 4


def test_vertex_map_is_first_seen_order():
    vm = VertexMap()
    assert vm.intern(np.array([50, 7, 50, 3])).tolist() == [0, 1, 0, 2]
    assert vm.lookup(np.array([3, 8])).tolist() == [2, -1]


def test_vertex_map_agrees_with_a_dict_through_side_index_merges():
    """Many small interns on a loaded map: ids stay first-seen order across the side index and
    its merges into the main index (MERGE_SHARE), and `external` inverts them."""
    rng = np.random.default_rng(5)
    vm = VertexMap(np.arange(0, 200, 2))
    seen = {int(x): i for i, x in enumerate(range(0, 200, 2))}
    for _ in range(300):
        ids = rng.integers(0, 1000, size=rng.integers(0, 12))
        got = vm.intern(ids)
        for x, g in zip(ids.tolist(), got.tolist(), strict=True):
            assert seen.setdefault(x, len(seen)) == g
    assert len(vm) == len(seen) and vm.lookup(np.array([1001])).tolist() == [-1]
    assert all(vm.external[i] == x for x, i in seen.items())


def test_vertex_map_append_refuses_repeats_and_known_ids_changing_nothing():
    vm = VertexMap(np.array([5, 9]))
    for bad in ([7, 7], [7, 9]):
        with pytest.raises(ValueError, match="distinct and unknown"):
            vm.append(np.array(bad))
        assert len(vm) == 2 and vm.lookup(np.array([7])).tolist() == [-1]
    vm.append(np.array([30, 7, 12]))
    assert vm.lookup(np.array([7, 12, 30, 5])).tolist() == [3, 4, 2, 0]


def test_tentative_numbers_repeated_unknown_ids_by_first_appearance():
    vm = VertexMap(np.array([100]))
    ids = np.array([8, 3, 100, 8, 3, 1, 100, 1])
    internal, new = vm.tentative(ids)
    assert internal.tolist() == [1, 2, 0, 1, 2, 3, 0, 3] and new.tolist() == [8, 3, 1] and len(vm) == 1


def test_live_capacity_is_the_capacity_sum_through_moves_and_compactions():
    """The running total that decides compaction (no O(vertices) sum per batch)."""
    rng = np.random.default_rng(6)
    g = DynamicGraph()
    present: set[tuple[int, int]] = set()
    for step in range(60):
        if step % 20 == 19:
            g.compact()
        ins = [tuple(sorted(e)) for e in rng.integers(0, 120, size=(80, 2)).tolist() if e[0] != e[1]]
        dele = rng.permutation(sorted(present))[:60].tolist() if present else []
        g.apply(g.normalize(ins, dele))
        present = (present - set(map(tuple, dele))) | set(ins)
        assert g._live_capacity == int(g.capacity.sum())
    assert g.compactions >= 2 and g.relocations > 0
    assert set(map(tuple, g.edges().tolist())) == present and _rows_sorted(g)


def test_one_batch_object_applied_to_two_equal_graphs_and_pickled():
    """The second graph reuses the rows' updates the first computed; a pickled batch carries none."""
    rng = np.random.default_rng(8)
    a, b = DynamicGraph(), DynamicGraph()
    for _ in range(20):
        ins, dele = ([e for e in rng.integers(0, 60, size=(n, 2)).tolist() if e[0] != e[1]] for n in (40, 30))
        batch = a.normalize(ins, dele)
        a.apply(batch)
        assert len(batch._by_row) == 1 and pickle.loads(pickle.dumps(batch))._by_row == []
        b.apply(batch)
        assert a.edges().tolist() == b.edges().tolist() and (a.degree == b.degree).all()
        assert a.vertices.external.tolist() == b.vertices.external.tolist() and _rows_sorted(b)


def test_rows_with_room_are_rewritten_in_place_by_insertions_deletions_or_both():
    """A row that fits its block keeps it whether the batch only adds to it (merged from its
    end), only removes from it (from its start) or does both (through a scratch row)."""
    g = DynamicGraph()
    g.apply(g.normalize([(0, v) for v in range(1, 21)], []))
    row = set(range(1, 21))
    for ins, dele in (([(0, 25), (0, 27), (30, 0)], []), ([], [(0, 2), (0, 20), (0, 1)]),
                      ([(0, 2), (0, 40)], [(0, 10), (0, 27)]), ([(0, 1)], [(0, 3)])):
        at = int(g.offsets[0])
        g.apply(g.normalize(ins, dele))
        row = (row | {v for _, v in ins} | {u for u, _ in ins}) - {v for _, v in dele} - {0}
        internal = g.vertices.lookup(np.array(sorted(row)))
        assert int(g.offsets[0]) == at and g.pool[at:at + g.degree[0]].tolist() == sorted(internal.tolist())
    assert _rows_sorted(g)


def test_compaction_keeps_every_row():
    g = DynamicGraph()
    edges = [(u, v) for u in range(40) for v in range(u + 1, 40)]
    g.apply(g.normalize(edges, []))
    g.apply(g.normalize([], edges[::2]))
    g.compact()
    assert set(map(tuple, g.edges().tolist())) == set(edges[1::2]) and _rows_sorted(g) and g.compactions == 1


def test_batch_view_ranks_and_release():
    g = DynamicGraph()
    g.apply(g.normalize([(0, 1), (1, 2), (2, 3)], []))
    pairs = np.array([[0, 1], [1, 2]], dtype=np.int32)
    view = g.batch_view(pairs)
    s = view.slot[1]
    assert view.partner[view.ptr[s] : view.ptr[s + 1]].tolist() == [0, 2]
    assert view.rank[view.ptr[s] : view.ptr[s + 1]].tolist() == [0, 1]
    g.release(view)
    assert (g.batch_view(np.zeros((0, 2), np.int32)).slot == -1).all()


def test_a_view_opened_inside_another_gets_slots_of_its_own():
    g = DynamicGraph()
    g.apply(g.normalize([(0, 1), (1, 2), (2, 3)], []))
    outer = g.batch_view(np.array([[0, 1]], dtype=np.int32))
    inner = g.batch_view(np.zeros((0, 2), np.int32))
    assert (inner.slot == -1).all() and outer.slot[0] >= 0
    g.release(inner)
    assert outer.slot[0] >= 0
    g.release(outer)
    after = g.batch_view(np.zeros((0, 2), np.int32))
    assert (after.slot == -1).all() and np.shares_memory(after.slot, outer.slot)  # shared again


@pytest.mark.parametrize(
    "edges, message",
    [
        ([(0, 1), (2, 2)], r"insert\[1\]: self-loop"),
        ([(0, -1)], r"insert\[0\]: vertex ids"),
        ([(0, 2**31)], r"insert\[0\]: vertex ids"),
        ([(0, 1, 2)], "pair"),
        ([[0, 1], [2]], "pair of integers"),
        ([("a", "b")], "pair of integers"),
        (np.zeros((2, 2, 2)), "pair"),
    ],
    ids=["self-loop", "negative", "oversized", "triple", "ragged", "strings", "3d"],
)
def test_bad_edges_are_rejected_naming_the_item(edges, message):
    with pytest.raises(GraphInputError, match=message):
        as_pairs(edges, "insert")


def test_rejected_batch_leaves_the_graph_unchanged():
    g = DynamicGraph()
    g.apply(g.normalize([(0, 1), (1, 2)], []))
    before = (g.edges().copy(), len(g.vertices))
    with pytest.raises(GraphInputError):
        g.normalize([(5, 6), (7, 7)], [])
    with pytest.raises(GraphInputError):
        g.normalize([(5, 6)], [(0, -3)])
    assert np.array_equal(g.edges(), before[0]) and len(g.vertices) == before[1]


@pytest.mark.parametrize(("insertions_first", "between"), [
    (False, [[1, 2]]),  # G_old less the deletions
    (True, [[1, 2], [1, 3], [2, 3], [3, 4], [4, 5], [5, 6]]),  # G_old and the insertions
], ids=["deletions-first", "insertions-first"])
def test_a_batchs_halves_applied_in_turn_apply_it(insertions_first, between):
    whole, halves = DynamicGraph(), DynamicGraph()
    for g in (whole, halves):
        g.apply(g.normalize([(1, 2), (2, 3), (3, 4)], []))
    batch = whole.normalize([(4, 5), (5, 6), (1, 3)], [(2, 3), (3, 4)])
    whole.apply(batch)
    first, second = batch.halves(insertions_first)
    halves.apply(first)
    assert halves.edges().tolist() == between
    halves.apply(second)
    assert halves.edges().tolist() == whole.edges().tolist()
    assert halves.vertices.external.tolist() == whole.vertices.external.tolist() == [1, 2, 3, 4, 5, 6]
