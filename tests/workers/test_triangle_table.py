"""The device graph's kept triangles (`TriangleTable`) and the diamond counts read from them, against
a recount on the host; the scheduler's route for them (`BatchPlan.kept_counts`).  GPU only, but
for the predicate, the switch and the host's plan of a side."""

from __future__ import annotations

import numpy as np
import pytest

from deltamatch.kernels import cpu_engine, plan_table
from deltamatch.kernels import cuda_engine as engine
from deltamatch.kernels.plan_table import is_edge_induced_diamond, kept_last_levels, reads_kept_triangles
from deltamatch.scheduler.core import SchedulerCore, WorkerPool
from deltamatch.scheduler.patterns import BUILTIN_PATTERNS, parse_pattern
from deltamatch.scheduler.plans import compile_plans, shared_plans
from deltamatch.scheduler.tasks import NEW, OLD, batch_tasks
from deltamatch.workers import triangle_table
from deltamatch.workers.cuda_backend import CudaGraph, cuda_available, kept_triangles_from_env
from deltamatch.workers.graph import DynamicGraph
from deltamatch.workers.replica import GraphReplica
from tests.workers.test_cuda_backend import follow, mixed_batch, random_pairs

needs_gpu = pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA device")


# The plans whose last level is an edge's common neighbourhood, read from the kept triangles, by
# pattern (edge-induced) where its size is served: the diamond's outer-edge plans; at k = 5, the
# house's (P1's) floor-edge plan.
KEPT_LAST_LEVELS = {"diamond": [1, 0, -1], "house": [-1, -1, -1, -1, 2, -1], "P1": [-1, -1, -1, -1, 2, -1]}


@pytest.mark.parametrize("name", sorted(BUILTIN_PATTERNS))
@pytest.mark.parametrize("induced", [False, True])
def test_only_the_edge_induced_diamond_is_counted_from_triangles(name: str, induced: bool) -> None:
    pattern = parse_pattern(name, induced=induced)
    plans = compile_plans(pattern, shared_plans(pattern))
    assert is_edge_induced_diamond(plans) == (name == "diamond" and not induced)


@pytest.mark.parametrize("name", sorted(BUILTIN_PATTERNS))
@pytest.mark.parametrize("induced", [False, True])
def test_patterns_with_a_kept_last_level_read_the_kept_triangles(name: str, induced: bool) -> None:
    pattern = parse_pattern(name, induced=induced)
    plans = compile_plans(pattern, shared_plans(pattern))
    served = not induced and name in KEPT_LAST_LEVELS and plans.k in plan_table.KEPT_LAST_SIZES
    assert reads_kept_triangles(plans) == served


@pytest.mark.parametrize("sizes", [(4,), (4, 5)])
@pytest.mark.parametrize("name", sorted(BUILTIN_PATTERNS))
@pytest.mark.parametrize("induced", [False, True])
def test_last_levels_counted_from_kept_triangles(name: str, induced: bool, sizes: tuple[int, ...],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plan_table, "KEPT_LAST_SIZES", sizes)
    pattern = parse_pattern(name, induced=induced)
    plans = compile_plans(pattern, shared_plans(pattern))
    none = [-1] * plans.order.shape[0]
    served = not induced and plans.k in sizes
    assert kept_last_levels(plans).tolist() == (KEPT_LAST_LEVELS.get(name, none) if served else none)


def test_kept_triangles_switch() -> None:
    assert kept_triangles_from_env({}) and not kept_triangles_from_env({"DELTAMATCH_GPU_KEPT_TRIANGLES": "0"})
    with pytest.raises(ValueError, match="DELTAMATCH_GPU_KEPT_TRIANGLES"):
        kept_triangles_from_env({"DELTAMATCH_GPU_KEPT_TRIANGLES": "yes"})


@pytest.mark.parametrize("piece", [triangle_table.PIECE, 3])
def test_a_side_is_planned_in_pieces_of_the_shorter_row(piece: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pair i's pieces start at `first[i]`: one per PIECE members of its shorter row, at least one;
    the bound is two slots per shorter-row member and one per pair."""
    monkeypatch.setattr(triangle_table, "PIECE", piece)
    degree = np.array([0, 5, 3, 700, 6, 1], dtype=np.int32)
    pairs = np.array([[1, 2], [3, 4], [0, 3], [3, 1], [5, 3]], dtype=np.int64)
    side = triangle_table.plan_side(pairs, degree)
    shorter = np.minimum(degree[pairs[:, 0]], degree[pairs[:, 1]])
    pieces = np.maximum(1, -(-shorter // piece))
    assert side.a.tolist() == pairs[:, 0].tolist() and side.b.tolist() == pairs[:, 1].tolist()
    assert side.a.dtype == side.b.dtype == side.first.dtype == np.int32
    assert side.first.tolist() == (np.cumsum(pieces) - pieces).tolist()
    assert (side.n, side.pieces, side.bound) == (5, int(pieces.sum()), 2 * int(shorter.sum()) + 5)


def test_an_empty_side_has_no_pieces() -> None:
    side = triangle_table.plan_side(np.zeros((0, 2), dtype=np.int64), np.ones(4, dtype=np.int32))
    assert (side.n, side.pieces, side.bound, side.first.shape) == (0, 0, 0, (0,))


def host_triangles(graph: DynamicGraph) -> dict[tuple[int, int], int]:
    """Triangles through every edge (internal ids, u < v), from the host rows."""
    rows = [set(graph.pool[graph.offsets[v]: graph.offsets[v] + graph.degree[v]].tolist())
            for v in range(len(graph.vertices))]
    return {(int(u), int(v)): len(rows[u] & rows[v]) for u, v in graph.internal_edges()}


def diamonds(t: dict) -> int:
    return sum(x * (x - 1) // 2 for x in t.values())


def table_contents(table: triangle_table.TriangleTable) -> dict[tuple[int, int], int]:
    keys, t = table.keys.get(), table.t.get()
    held = keys < np.uint64(0xFFFF_FFFF_FFFF_FFFE)
    ends = zip(keys[held] >> np.uint64(32), keys[held] & np.uint64(0xFFFF_FFFF), strict=True)
    return {(int(u), int(v)): int(x) for (u, v), x in zip(ends, t[held], strict=True)}


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("piece, hub_min_degree", [(triangle_table.PIECE, None), (2, 8)])
def test_kept_triangles_equal_a_recount_through_batches(piece: int, hub_min_degree: int | None,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """After a bulk load and every mixed batch (new vertices, hubs): every edge's t equals its
    triangles, the table holds exactly the edges, and the diamonds each batch destroyed and
    created equal the recounts' differences (G_mid = G_old - D); the table is built again when
    insertions would fill it.  Also with pieces of 2 members, so that a pair's shorter row is
    split among many warps, and with hub bitmaps (rows of degree 8 and more) for its lookups."""
    monkeypatch.setattr(triangle_table, "PIECE", piece)
    rng = np.random.default_rng(31)
    device, host = CudaGraph(), DynamicGraph()
    device.rows.keep_triangles(True)
    follow(device, host, rng, 1, 120, inserts=500, deletes=0)
    if hub_min_degree is not None:
        monkeypatch.setattr(engine, "HUB_MIN_DEGREE", hub_min_degree)
        device.rows.view()
        assert int((device.rows.hub_rows != 0).sum()) > 3
    table = device.rows.triangles
    assert table_contents(table) == host_triangles(host)
    assert device.rows.last_diamonds == (0, diamonds(host_triangles(host)))
    for _ in range(12):
        old = diamonds(host_triangles(host))
        ins, dele = mixed_batch(rng, host.edges(), 130, 150, 60)
        batch = host.normalize(ins, dele)
        middle = DynamicGraph()
        middle.add_vertices(host.vertices.external)
        middle.apply(middle.normalize(host.edges(), None))
        middle.apply(middle.normalize(None, host.vertices.external[batch.deleted]))
        if hub_min_degree is not None:
            device.rows.view()  # bitmaps again where new vertices dropped them (ensure_vertices)
        device.apply(batch)
        host.apply(batch)
        mid, new = diamonds(host_triangles(middle)), diamonds(host_triangles(host))
        assert device.rows.last_diamonds == (old - mid, new - mid)
        assert table_contents(table) == host_triangles(host)
        assert table.diamonds == new
    assert table.rebuilds > 1


def count_only_cores(workers: int) -> tuple[SchedulerCore, SchedulerCore]:
    """A core over CUDA replicas and one over a CPU replica, both listing nothing."""
    replicas = [GraphReplica("cuda") for _ in range(workers)]
    gpu = SchedulerCore(WorkerPool(replicas), list_limit=0, policy="even")
    cpu = SchedulerCore(WorkerPool([GraphReplica("cpu")]), list_limit=0, policy="even")
    return gpu, cpu


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("workers", [1, 2])
def test_counted_whole_from_kept_triangles_equals_the_cpu_engine(workers: int) -> None:
    """The edge-induced diamond, registered beside others, counted from kept triangles by one worker
    per batch (no tasks sent) while nothing is listed: the same deltas and totals as the CPU
    engine's, and a total that equals a recount; listing again runs tasks."""
    rng = np.random.default_rng(37)
    gpu, cpu = count_only_cores(workers)
    base = random_pairs(rng, 90, 400)
    for core in (gpu, cpu):
        core.load(base)
    for core in (gpu, cpu):
        for name, induced in (("diamond", False), ("diamond", True), ("4-cycle", False)):
            core.register(parse_pattern(name, induced=induced))
    assert [reg.kept for reg in gpu.patterns.values()] == [True, False, False]
    for _ in range(6):
        ins, dele = mixed_batch(rng, cpu.intake.graph.edges(), 95, 60, 30)
        a, b = gpu.apply(ins, dele), cpu.apply(ins, dele)
        assert not a.local and {g.tasks for g in a.groups if g.pattern == 1} == {0}
        for pid in gpu.patterns:
            da, db = a.deltas[pid], b.deltas[pid]
            assert (da.added_count, da.removed_count, da.total) == (
                db.added_count, db.removed_count, db.total), pid
    for pid, reg in gpu.patterns.items():
        assert reg.total == gpu.pool.static_count(pid)
    ins, dele = mixed_batch(rng, cpu.intake.graph.edges(), 95, 30, 10)
    a, b = gpu.apply(ins, dele, list_limit=10**6), cpu.apply(ins, dele, list_limit=10**6)
    assert sum(g.tasks for g in a.groups if g.pattern == 1) > 0
    np.testing.assert_array_equal(a.deltas[1].added, b.deltas[1].added)
    np.testing.assert_array_equal(a.deltas[1].removed, b.deltas[1].removed)
    assert a.deltas[1].added.shape[0] == a.deltas[1].added_count > 0


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("name", sorted(KEPT_LAST_LEVELS))
def test_last_levels_read_from_kept_triangles_equal_the_cpu_engine_per_task(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both sides of mixed batches (deletions, new vertices, hubs): every task's count with the last
    level read from the kept triangles equals the CPU engine's, and the same run's without them
    (at sizes 4 and 5, whatever KEPT_LAST_SIZES serves)."""
    monkeypatch.setattr(plan_table, "KEPT_LAST_SIZES", (4, 5))
    rng = np.random.default_rng(41)
    device, host = CudaGraph(), DynamicGraph()
    device.rows.keep_triangles(True)
    follow(device, host, rng, 1, 150, inserts=900, deletes=0)
    pattern = parse_pattern(name)
    plans = compile_plans(pattern, shared_plans(pattern))
    for _ in range(4):
        ins, dele = mixed_batch(rng, host.edges(), 160, 120, 60)
        batch = host.normalize(ins, dele)
        changed, n_del = batch.changed, batch.deleted.shape[0]
        for side in (OLD, NEW):
            if side == NEW:
                device.apply(batch)
                host.apply(batch)
            tasks = batch_tasks(plans, changed, n_del, side)
            view = host.batch_view(changed)
            want = cpu_engine.count_tasks(host.view(), plans, tasks, view)
            rows = device.rows.view()
            got = engine.count_tasks(rows, plans, tasks, view, False)
            without = rows._replace(tt_keys=None, tt_t=None, tt_bits=0)
            plain = engine.count_tasks(without, plans, tasks, view, False)
            host.release(view)
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(plain, want)
            assert want.sum() > 0
