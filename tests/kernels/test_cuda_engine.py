"""The CUDA engine and backend give the CPU engine's counts and listings exactly (GPU only)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from deltamatch.bench.rmat import rmat_edges
from deltamatch.kernels import cpu_engine
from deltamatch.kernels.plan_table import LAST_PAIRS, TaskList, empty_batch, memo_plans
from deltamatch.kernels.reference import reference_matches
from deltamatch.scheduler.patterns import BUILTIN_PATTERNS, parse_pattern
from deltamatch.scheduler.plans import compile_plans, shared_plans, static_plan
from deltamatch.scheduler.tasks import NEW, OLD, batch_tasks
from deltamatch.workers.cuda_backend import cuda_available
from deltamatch.workers.graph import DynamicGraph
from deltamatch.workers.protocol import BatchPlan, PatternPlans
from deltamatch.workers.replica import GraphReplica

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA device"),
]

PATTERNS = sorted(BUILTIN_PATTERNS)


@pytest.fixture(autouse=True)
def pair_tables_for_small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """This module's batches are far below PAIR_TABLE_MIN_PAIRS: they get a pair table all the same,
    so that the default build's table lookups are what the parity tests check (the hash0 balances
    run the build without, which a small batch gets in service)."""
    from deltamatch.kernels import cuda_engine

    monkeypatch.setattr(cuda_engine, "PAIR_TABLE_MIN_PAIRS", 1)


def random_edges(rng: np.random.Generator, n: int, m: int, hubs: int = 2) -> np.ndarray:
    """m random pairs on n vertices, a few hubs joined to a third of the graph; self-loops dropped."""
    pairs = rng.integers(0, n, size=(m, 2))
    hub_pairs = np.stack([np.repeat(np.arange(hubs), n // 3), rng.integers(0, n, size=hubs * (n // 3))], 1)
    pairs = np.concatenate([pairs, hub_pairs])
    return pairs[pairs[:, 0] != pairs[:, 1]]


def loaded_graph(edges: np.ndarray) -> DynamicGraph:
    g = DynamicGraph()
    g.apply(g.normalize(edges, None))
    return g


def assert_old_side_equals_cpu(g: DynamicGraph, plans, rng: np.random.Generator, n: int, count) -> None:
    """On a random mixed batch over n vertices, `count(tasks, batch_view)` of its old side equals
    the CPU engine's per-task counts on g."""
    present = g.edges()
    dele = present[rng.choice(present.shape[0], size=20, replace=False)]
    ins = rng.integers(0, n, size=(20, 2))
    nb = g.normalize(ins[ins[:, 0] != ins[:, 1]], dele)
    view = g.batch_view(nb.changed)
    try:
        old = batch_tasks(plans, nb.changed, nb.deleted.shape[0], OLD)
        np.testing.assert_array_equal(count(old, view),
                                      cpu_engine.count_tasks(g.view(), plans, old, view, plans.induced))
    finally:
        g.release(view)


def assert_joint_batch_equals_cpu(edges: np.ndarray, plans, rng: np.random.Generator, n: int, count) -> None:
    """On a graph of `edges` that has taken the insertions of a random mixed batch over n vertices,
    `count(graph_view, tasks, batch_view)` of both sides' tasks with the joint view (`BatchView.joint`) equals
    the CPU engine's per-task counts there, which are the sides' own (test_cpu_engine)."""
    g = loaded_graph(edges)
    present = g.edges()
    dele = present[rng.choice(present.shape[0], size=20, replace=False)]
    ins = rng.integers(0, n, size=(20, 2))
    nb = g.normalize(ins[ins[:, 0] != ins[:, 1]], dele)
    n_del = nb.deleted.shape[0]
    both = batch_tasks(plans, nb.changed, n_del, OLD).followed_by(batch_tasks(plans, nb.changed, n_del, NEW))
    g.apply(nb.halves(insertions_first=True)[0])
    view = g.batch_view(nb.changed)
    try:
        joint = view.joint(n_del)
        np.testing.assert_array_equal(count(g.view(), both, joint),
                                      cpu_engine.count_tasks(g.view(), plans, both, joint))
    finally:
        g.release(view)


def cpu_static_count(g: DynamicGraph, plans) -> int:
    """The CPU engine's whole-graph count of a static plan table."""
    return int(cpu_engine.count_tasks(g.view(), plans, TaskList.static(g.internal_edges()),
                                      empty_batch(len(g.vertices))).sum())


def plans_of(name: str, induced: bool) -> PatternPlans:
    pattern = parse_pattern(name, induced=induced)
    return PatternPlans(compile_plans(pattern, shared_plans(pattern)),
                        compile_plans(pattern, [static_plan(pattern)]))


@pytest.mark.parametrize("induced", [False, True])
@pytest.mark.parametrize("name", PATTERNS)
def test_static_counts_and_listings_equal_cpu_engine(name: str, induced: bool) -> None:
    from deltamatch.kernels import cuda_engine

    rng = np.random.default_rng(len(name) * 7 + induced)
    g = loaded_graph(random_edges(rng, 48, 260))
    plans = plans_of(name, induced).static
    tasks = TaskList.static(g.internal_edges())
    batch = empty_batch(len(g.vertices))
    want = cpu_engine.count_tasks(g.view(), plans, tasks, batch)
    got = cuda_engine.count_tasks(g.view(), plans, tasks, batch)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(cuda_engine.list_tasks(g.view(), plans, tasks, batch, got),
                                  cpu_engine.list_tasks(g.view(), plans, tasks, batch, want))


@pytest.mark.parametrize("induced", [False, True])
@pytest.mark.parametrize("name", ["triangle", "4-cycle", "diamond", "house", "tailed-triangle", "P2"])
def test_static_listing_equals_reference(name: str, induced: bool) -> None:
    rng = np.random.default_rng(3)
    edges = random_edges(rng, 11, 30, hubs=1)
    replica = GraphReplica("cuda")
    replica.apply_only(1, replica.normalize(edges, None))
    replica.register(1, plans_of(name, induced))
    pattern = parse_pattern(name, induced=induced)
    want = reference_matches(replica.graph.edges().tolist(), pattern.edges, pattern.k, induced)
    got = {tuple(int(x) for x in row) for row in replica.static_list(1, 0, 1)}
    assert got == want
    assert replica.static_count(1, 0, 1) == len(want)


@pytest.mark.parametrize("joint", [False, True], ids=["apart", "joint"])
@pytest.mark.parametrize("induced", [False, True])
@pytest.mark.parametrize("name", PATTERNS)
def test_mixed_batches_equal_cpu_replica(name: str, induced: bool, joint: bool) -> None:
    """The CUDA replica's batches, their sides apart or (edge-induced) joint, equal the CPU replica's."""
    from deltamatch.workers.cuda_backend import CudaBackend

    rng = np.random.default_rng(11 + len(name) + 100 * induced)
    n = 40
    gpu, cpu = GraphReplica(CudaBackend(joint_sides=joint)), GraphReplica("cpu")
    base = random_edges(rng, n, 150)
    for version, replica in ((1, gpu), (1, cpu)):
        replica.apply_only(version, replica.normalize(base, None))
        replica.register(1, plans_of(name, induced))
    for version in range(2, 6):
        present = gpu.graph.edges()
        dele = present[rng.choice(present.shape[0], size=12, replace=False)]
        ins = rng.integers(0, n + 4, size=(14, 2))
        ins = np.concatenate([ins[ins[:, 0] != ins[:, 1]], dele[:2]])  # also a pair in both lists
        results = []
        for replica in (gpu, cpu):
            batch = replica.normalize(ins, dele)
            plans = replica.patterns[1].batch
            changed = batch.changed
            tasks = {1: (batch_tasks(plans, changed, batch.deleted.shape[0], OLD),
                         batch_tasks(plans, changed, batch.deleted.shape[0], NEW))}
            results.append(replica.execute(BatchPlan(version, batch, tasks, 10**9)))
        g_res, c_res = results
        for side in ("removed", "added"):
            a, b = getattr(g_res, side)[1], getattr(c_res, side)[1]
            assert a.count == b.count
            np.testing.assert_array_equal(a.rows, b.rows)
    assert gpu.static_count(1, 0, 1) == cpu.static_count(1, 0, 1)


@pytest.mark.parametrize("read_ahead", [True, False], ids=["ahead", "behind"])
@pytest.mark.parametrize("name", ["4-clique", "diamond", "4-cycle", "house"])
def test_counted_joint_batches_equal_cpu_replica(name: str, read_ahead: bool,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A joint batch that lists nothing (its deletions queued behind the count's launches, the counts
    read ahead of them or behind) gives the CPU replica's counts, and leaves the same graph."""
    from deltamatch.kernels import cuda_engine
    from deltamatch.workers.cuda_backend import CudaBackend

    monkeypatch.setattr(cuda_engine, "READ_AHEAD", read_ahead)
    rng = np.random.default_rng(5 + len(name))
    n = 40
    gpu, cpu = GraphReplica(CudaBackend(joint_sides=True)), GraphReplica("cpu")
    base = random_edges(rng, n, 150)
    for replica in (gpu, cpu):
        replica.apply_only(1, replica.normalize(base, None))
        replica.register(1, plans_of(name, False))
    for version in range(2, 6):
        present = gpu.graph.edges()
        dele = present[rng.choice(present.shape[0], size=12, replace=False)]
        ins = rng.integers(0, n + 4, size=(14, 2))
        ins = ins[ins[:, 0] != ins[:, 1]]
        results = []
        for replica in (gpu, cpu):
            batch = replica.normalize(ins, dele)
            plans = replica.patterns[1].batch
            tasks = {1: (batch_tasks(plans, batch.changed, batch.deleted.shape[0], OLD),
                         batch_tasks(plans, batch.changed, batch.deleted.shape[0], NEW))}
            plan = BatchPlan(version, batch, tasks, 0)
            assert replica is cpu or replica.joint_sides(plan)
            results.append(replica.execute(plan))
        for side in ("removed", "added"):
            assert getattr(results[0], side)[1].count == getattr(results[1], side)[1].count
        np.testing.assert_array_equal(gpu.graph.edges(), cpu.graph.edges())


@pytest.mark.parametrize(("warps", "per_block"), [(24, 8), (28, 4), (32, 8), (36, 4)])
def test_a_build_is_launched_with_its_own_warps_an_sm(warps: int, per_block: int) -> None:
    """The launch of a build is sized by that build's registers and block (session 37's call 3
    sized Balance.warps_per_sm = 32's by the default build's): its match_tasks holds at least
    `warps` warps an SM."""
    from deltamatch.kernels import cuda_engine

    sms = cuda_engine.cupy().cuda.Device().attributes["MultiProcessorCount"]
    defines = cuda_engine.Balance(warps_per_sm=warps).defines()
    resident = cuda_engine.resident_blocks("match_tasks", "match.cu", defines=defines)
    assert resident * per_block >= warps * sms
    shape = cuda_engine.launch_shape(10**6, 4, "match_tasks", defines=defines)
    assert (shape.blocks, shape.threads) == (resident, per_block * 32)


@pytest.mark.parametrize("function", ["match_tasks", "match_memo"])
def test_the_default_build_holds_32_warps_an_sm(function: str) -> None:
    """NVRTC fits the default build's (28 warps an SM, capped at 72 registers) match_tasks and
    match_memo in 64 registers, so that an SM holds 8 blocks of 4 warps of them (match_shared
    needs 66-72 under NVRTC, 64 under nvcc 13 here: sessions 39-40)."""
    from deltamatch.kernels import cuda_engine

    sms = cuda_engine.cupy().cuda.Device().attributes["MultiProcessorCount"]
    assert cuda_engine.resident_blocks(function, cuda_engine.match_unit(function)) == 8 * sms


def test_read_ahead_copies_counters_and_counts() -> None:
    from deltamatch.kernels import cuda_engine

    cp = cuda_engine.cupy()
    counters, counts = cp.arange(7, dtype=cp.uint64), cp.arange(1000, 0, -1, dtype=cp.int64)
    ahead = cuda_engine.read_ahead(counters, counts)
    ahead.copied.synchronize()
    np.testing.assert_array_equal(ahead.counters, counters.get())
    np.testing.assert_array_equal(ahead.counts, counts.get())
    assert cuda_engine.read_ahead(counters).counts is None


def static_listing_case(name: str):
    """A hub graph's static tasks of `name` and their GPU counts: (graph, plans, tasks, batch, counts)."""
    from deltamatch.kernels import cuda_engine

    rng = np.random.default_rng(9)
    g = loaded_graph(random_edges(rng, 60, 500, hubs=3))
    plans = plans_of(name, False).static
    tasks = TaskList.static(g.internal_edges())
    batch = empty_batch(len(g.vertices))
    return g, plans, tasks, batch, cuda_engine.count_tasks(g.view(), plans, tasks, batch)


def test_listing_in_many_small_rounds_equals_one_round() -> None:
    from deltamatch.kernels import cuda_engine

    g, plans, tasks, batch, counts = static_listing_case("diamond")
    assert counts.max() > 3
    whole = cuda_engine.list_tasks(g.view(), plans, tasks, batch, counts)
    rounds = cuda_engine.list_tasks(g.view(), plans, tasks, batch, counts, buffer_bytes=3 * 4 * plans.k)
    np.testing.assert_array_equal(rounds, whole)


def test_listing_with_a_limit_equals_the_cpu_engines() -> None:
    from deltamatch.kernels import cuda_engine

    g, plans, tasks, batch, counts = static_listing_case("house")
    inside = int(counts[: np.argmax(counts) + 1].sum()) - 1  # ends inside the largest task
    assert counts.max() > 1
    for limit in (0, 1, inside, int(counts.sum()) + 5):
        got = cuda_engine.list_tasks(g.view(), plans, tasks, batch, counts, limit=limit,
                                     buffer_bytes=64 * 4 * plans.k)
        want = cpu_engine.list_tasks(g.view(), plans, tasks, batch, counts, limit=limit)
        np.testing.assert_array_equal(got, want)


def test_listing_rejects_counts_that_disagree() -> None:
    from deltamatch.kernels import cuda_engine

    rng = np.random.default_rng(4)
    g = loaded_graph(random_edges(rng, 30, 120))
    plans = plans_of("triangle", False).static
    tasks = TaskList.static(g.internal_edges())
    batch = empty_batch(len(g.vertices))
    counts = cuda_engine.count_tasks(g.view(), plans, tasks, batch)
    counts[np.argmax(counts)] += 1
    with pytest.raises(cuda_engine.EngineError):
        cuda_engine.list_tasks(g.view(), plans, tasks, batch, counts)


@pytest.mark.parametrize("name", ["triangle", "4-cycle", "diamond", "4-clique", "house"])
def test_skewed_rmat_static_and_batches_equal_cpu_engine(name: str) -> None:
    from deltamatch.kernels import cuda_engine
    from deltamatch.workers.cuda_backend import CudaBackend

    edges = rmat_edges(11, edge_factor=8, seed=2)
    rng = np.random.default_rng(1)
    edges = edges[rng.permutation(edges.shape[0])]
    cut = int(0.9 * edges.shape[0])
    backend, g = CudaBackend(), DynamicGraph()  # the device-only backend and a host graph beside it
    load = g.normalize(edges[:cut], None)
    backend.apply(load)
    g.apply(load)
    pat = plans_of(name, False)
    static = TaskList.static(g.internal_edges())
    batch0 = empty_batch(len(g.vertices))
    assert int(cuda_engine.count_total(backend.device.view(), pat.static,
                                       cuda_engine.static_tasks(backend.device.view(), backend.device.n,
                                                                pat.static),
                                       batch0)) == int(cpu_engine.count_tasks(g.view(), pat.static, static,
                                                                              batch0).sum())
    for lo in range(cut, edges.shape[0], 500):
        nb = g.normalize(edges[lo: lo + 500], edges[lo - cut: lo - cut + 100])
        plans = pat.batch
        changed = nb.changed
        view = g.batch_view(changed)
        dview = backend.batch_view(changed)
        try:
            old = batch_tasks(plans, changed, nb.deleted.shape[0], OLD)
            want = cpu_engine.count_tasks(g.view(), plans, old, view)
            np.testing.assert_array_equal(backend.count(plans, old, dview, False), want)
            backend.apply(nb)
            g.apply(nb)
            new = batch_tasks(plans, changed, nb.deleted.shape[0], NEW)
            want = cpu_engine.count_tasks(g.view(), plans, new, view)
            got = backend.count(plans, new, dview, False)
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(backend.list(plans, new, dview, got, False),
                                          cpu_engine.list_tasks(g.view(), plans, new, view, want))
        finally:
            backend.release(dview)
            g.release(view)


@pytest.mark.parametrize("hub_first", [True, False])
@pytest.mark.parametrize("induced", [False, True])
@pytest.mark.parametrize("name", PATTERNS)
def test_hub_bitmaps_count_and_list_as_the_cpu_engine(name: str, induced: bool, hub_first: bool) -> None:
    """Adjacency tests by hub bitmap (every row of degree 6 or more has one here) give the CPU
    engine's counts and listings, with and without statistics, static and on a batch's old side;
    counts with a matched hub's bitmap read first (DM_HUB_FIRST) and without."""
    from deltamatch.kernels import cuda_engine

    rng = np.random.default_rng(31 + induced)
    g = loaded_graph(random_edges(rng, 60, 300, hubs=3))
    hubs = cuda_engine.with_hub_bitmaps(cuda_engine.device_graph(g.view()), min_degree=6)
    assert int((hubs.hub_row != 0).sum()) > 3
    pat = plans_of(name, induced)
    static = TaskList.static(g.internal_edges())
    batch0 = empty_batch(len(g.vertices))
    want = cpu_engine.count_tasks(g.view(), pat.static, static, batch0)
    balance = cuda_engine.Balance(hub_first=hub_first)
    np.testing.assert_array_equal(
        cuda_engine.count_tasks(hubs, pat.static, static, batch0, balance=balance), want)
    np.testing.assert_array_equal(
        cuda_engine.count_tasks(hubs, pat.static, static, batch0, stats=cuda_engine.KernelStats()), want)
    np.testing.assert_array_equal(cuda_engine.list_tasks(hubs, pat.static, static, batch0, want),
                                  cpu_engine.list_tasks(g.view(), pat.static, static, batch0, want))
    assert_old_side_equals_cpu(g, pat.batch, rng, 60, lambda tasks, view: cuda_engine.count_tasks(
        hubs, pat.batch, tasks, view, induced, balance=balance))


def test_device_info_names_the_gpu() -> None:
    from deltamatch.workers.cuda_backend import CudaBackend

    info = CudaBackend().device_info()
    assert info["backend"] == "cuda" and info["gpu_name"] and info["memory_bytes"] > 0


def test_grid_blocks_cover_the_items_up_to_32_per_sm() -> None:
    from deltamatch.kernels import cuda_engine

    sms = cuda_engine.cupy().cuda.Device().attributes["MultiProcessorCount"]
    assert cuda_engine.grid_blocks(0) == 1 and cuda_engine.grid_blocks(257) == 2
    assert cuda_engine.grid_blocks(10**9) == 32 * sms and cuda_engine.grid_blocks(10**9, 1) == 32 * sms


def balances():
    """Every combination of the load-balance switches (stealing acts on unrolled pair lists only),
    the pair loop without its window, seeds as given, changed pairs without the pair table or the
    pair filter and a pair list's checks made per pair; tiny thresholds, so that deferral and work
    sharing act on small graphs.  Every one unrolls 4-vertex patterns too (unroll_min_k 4), but
    `mink5`, the default rule."""
    from dataclasses import replace

    from deltamatch.kernels.cuda_engine import Balance

    out = {}
    sharing = [(False, False, False), (True, False, False), (True, True, False), (True, True, True)]
    for heavy, split, (unroll, steal, fill) in itertools.product([False, True], [False, True], sharing):
        for chunk in ([0, 3] if split else [0]):
            name = (f"heavy{int(heavy)}-split{int(split)}{'-chunk3' if chunk else ''}-unroll{int(unroll)}"
                    f"-steal{int(steal)}-fill{int(fill)}")
            out[name] = Balance(heavy_first=heavy, split=split, defer_cost=2, chunk=chunk, unroll=unroll,
                                steal=steal, share_pairs=1, fill=fill)
    for steal in (False, True):  # the pair loop's build without its window, alone and with claims
        out[f"window0-steal{int(steal)}"] = Balance(split=False, steal=steal, share_pairs=1,
                                                    pair_window=False)
    for split in (False, True):  # seeds as given, with and without the deferred launch
        out[f"swap0-split{int(split)}"] = Balance(split=split, defer_cost=2, share_pairs=1, seed_swap=False)
    for steal in (False, True):  # changed pairs by binary search, unfiltered; a pair list's checks per pair
        out[f"hash0-steal{int(steal)}"] = Balance(split=False, steal=steal, share_pairs=1, pair_hash=False)
        out[f"filter0-steal{int(steal)}"] = Balance(split=False, steal=steal, share_pairs=1,
                                                    pair_filter=False)
        out[f"listchecks0-steal{int(steal)}"] = Balance(split=False, steal=steal, share_pairs=1,
                                                        list_checks=False)
    # dynamic unrolling: pair lists flat only below 32 pairs a candidate (most of them here), and
    # only below 2 (most lists w by w), beside shared and deferred ones
    out["flatbelow32-steal1"] = Balance(defer_cost=2, share_pairs=1, flat_below=32)
    out["flatbelow2-steal1"] = Balance(defer_cost=2, share_pairs=1, flat_below=2)
    out["driveshort0"] = Balance(split=False, share_pairs=1, drive_short=False)  # base sets walked whole
    out["touched0"] = Balance(defer_cost=2, share_pairs=1, ranked_touched=False)  # every ranked lookup made
    out["prefetch1"] = Balance(defer_cost=2, share_pairs=1, prefetch_next=True)  # next candidates read early
    out["staged1"] = Balance(defer_cost=2, share_pairs=1, staged_lookups=True)  # lookups 32 at a time
    out["warps24"] = Balance(defer_cost=2, share_pairs=1, warps_per_sm=24)  # 80 registers, blocks of 8
    out["warps32"] = Balance(defer_cost=2, share_pairs=1, warps_per_sm=32)  # the kernels at 64 registers
    out["warps36"] = Balance(defer_cost=2, share_pairs=1, warps_per_sm=36)  # 56 registers, blocks of 4
    out["setcost0"] = Balance(defer_cost=2, share_pairs=1, cost_by_set=False)  # chunks costed by degree alone
    # memo plans' tasks in a launch of their own, not deferred or deferred and cut into chunks as
    # the rest; with per-pair checks; without the memo; beside the rest's launches; sharing flushes
    out["memo"] = Balance(defer_cost=2, share_pairs=1)
    out["memo-chunks4"] = Balance(defer_cost=2, share_pairs=1, memo_chunks=4)
    out["memo-listchecks0"] = Balance(split=False, share_pairs=1, list_checks=False)
    out["memo0"] = Balance(defer_cost=2, share_pairs=1, last_memo=False)
    out["memo-overlap"] = Balance(defer_cost=2, share_pairs=1, memo_overlap=True)  # its launch on a stream
    out["memo-share0"] = Balance(defer_cost=2, share_pairs=1, memo_share=False)  # its flushes unshared
    # a memo of one width's keys, which hub tasks can fill within the task (asserted on RMAT-10 below)
    out["memo-flush"] = Balance(split=False, share_pairs=1, memo_factor=1)
    out = {name: replace(balance, unroll_min_k=4) for name, balance in out.items()}
    out["mink5"] = Balance(defer_cost=2, share_pairs=1)
    return out


@pytest.mark.parametrize("balance", sorted(balances()))
@pytest.mark.parametrize("induced", [False, True])
@pytest.mark.parametrize("name", PATTERNS)
def test_every_balance_switch_counts_the_same(name: str, induced: bool, balance: str) -> None:
    """Static and batch counts equal the CPU engine's under every switch combination (deferral
    with a cost threshold of 2, so that the second launch runs on this small graph; LAST_PAIRS
    tasks are counted from their level-2 size and never deferred)."""
    from deltamatch.kernels import cuda_engine

    setting = balances()[balance]
    rng = np.random.default_rng(21 + induced)
    g = loaded_graph(random_edges(rng, 50, 300, hubs=3))
    pat = plans_of(name, induced)
    static = TaskList.static(g.internal_edges())
    batch0 = empty_batch(len(g.vertices))
    want = cpu_engine.count_tasks(g.view(), pat.static, static, batch0)
    stats = cuda_engine.KernelStats()
    got = cuda_engine.count_tasks(g.view(), pat.static, static, batch0, balance=setting, stats=stats)
    np.testing.assert_array_equal(got, want)
    walked = pat.static.k >= 4 and not (pat.static.k == 4 and pat.static.last_two[0] == LAST_PAIRS)
    memo_only = (setting.last_memo and setting.unroll and setting.memo_chunks == 0
                 and memo_plans(pat.static).all())
    if setting.split and walked and not memo_only and want.max() > 0:
        assert stats.deferred > 0 and stats.chunks >= stats.deferred
    assert cuda_engine.count_total(g.view(), pat.static, static, batch0, balance=setting) == int(want.sum())
    assert_old_side_equals_cpu(g, pat.batch, rng, 50, lambda tasks, view: cuda_engine.count_tasks(
        g.view(), pat.batch, tasks, view, induced, balance=setting))
    if not induced:
        assert_joint_batch_equals_cpu(g.edges(), pat.batch, rng, 50, lambda graph, tasks, view:
                                      cuda_engine.count_tasks(graph, pat.batch, tasks, view, balance=setting))


@pytest.mark.parametrize("name", ["4-clique", "house"])
def test_a_short_host_task_list_is_ordered_on_the_host_in_the_tasks_copy(name: str) -> None:
    """uploaded_tasks: a host list that runs as one part over a graph whose degrees the host keeps
    gets its heavy-first order beside it (decreasing min(deg u, deg v)); the house's, whose memo
    plans run apart, is ordered per part; either way the counts are the CPU engine's."""
    from deltamatch.kernels import cuda_engine

    g = loaded_graph(random_edges(np.random.default_rng(6), 60, 300, hubs=3))
    table = plans_of(name, False).batch
    changed = g.internal_edges()[:40]
    tasks = batch_tasks(table, changed, changed.shape[0], OLD)
    deg = np.asarray(g.view().degree, dtype=np.int32)
    graph = cuda_engine.device_graph(g.view())._replace(host_degree=deg)
    uploaded, order = cuda_engine.uploaded_tasks(graph, cuda_engine.device_plans(table), tasks,
                                                 cuda_engine.Balance())
    np.testing.assert_array_equal(uploaded.u.get(), tasks.u)
    view = g.batch_view(changed)
    try:
        np.testing.assert_array_equal(cuda_engine.count_tasks(graph, table, tasks, view),
                                      cpu_engine.count_tasks(g.view(), table, tasks, view))
    finally:
        g.release(view)
    if name == "house":
        assert order is None
        return
    cost = np.minimum(deg[tasks.u], deg[tasks.v])[order.perm.get()]
    assert sorted(order.perm.get().tolist()) == list(range(tasks.size)) and (np.diff(cost) <= 0).all()
    assert deg.max() < cuda_engine.Balance.piece_min_degree and order.heavy == 0  # no seed is pieced


def test_a_full_arena_walks_its_overflow_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """With an arena of 64 entries most heavy tasks find no room and are walked in phase 0, and the
    chunk steps queued behind it see only the sets recorded: the same counts."""
    from deltamatch.kernels import cuda_engine

    rng = np.random.default_rng(12)
    g = loaded_graph(random_edges(rng, 60, 400, hubs=3))
    pat = plans_of("4-clique", False)
    static = TaskList.static(g.internal_edges())
    batch0 = empty_batch(len(g.vertices))
    want = cpu_engine.count_tasks(g.view(), pat.static, static, batch0)
    monkeypatch.setattr(cuda_engine, "ARENA_INTS", 64)
    stats = cuda_engine.KernelStats()
    balance = cuda_engine.Balance(defer_cost=2)
    got = cuda_engine.count_tasks(g.view(), pat.static, static, batch0, balance=balance, stats=stats)
    np.testing.assert_array_equal(got, want)
    assert 0 < stats.deferred < int((want > 0).sum())


def host_ordered(view):
    """A graph view on the device with the host's copy of its degrees: short task lists over it are
    ordered on the host (uploaded_tasks), the order seed pieces need."""
    from deltamatch.kernels import cuda_engine

    return cuda_engine.device_graph(view)._replace(host_degree=np.asarray(view.degree, dtype=np.int32))


@pytest.mark.parametrize("steal", [False, True])
@pytest.mark.parametrize("pieces", [3, 32])
@pytest.mark.parametrize("induced", [False, True])
@pytest.mark.parametrize("name", PATTERNS)
def test_seed_pieces_count_as_the_cpu_engine(name: str, induced: bool, pieces: int, steal: bool) -> None:
    """Balance.seed_pieces: the level-2 sets of the seeds whose endpoints both reach the median
    degree built in `pieces` ranges by as many warps and joined into deferred sets (match_pieces,
    gather_pieces): static counts and totals, an old side and a joint batch equal the CPU engine's,
    with and without work sharing; tasks are pieced exactly where every plan stores its level-2 set."""
    from deltamatch.kernels import cuda_engine

    rng = np.random.default_rng(31 + induced)
    g = loaded_graph(random_edges(rng, 50, 300, hubs=3))
    degree = np.asarray(g.view().degree)
    # The memo off: memo plans' tasks then run with the rest, ordered on the host and pieced.
    balance = cuda_engine.Balance(defer_cost=2, share_pairs=1, steal=steal, unroll_min_k=4, last_memo=False,
                                  seed_pieces=pieces, piece_min_degree=int(np.median(degree[degree > 0])))
    pat = plans_of(name, induced)
    static = TaskList.static(g.internal_edges())
    batch0 = empty_batch(len(g.vertices))
    want = cpu_engine.count_tasks(g.view(), pat.static, static, batch0)
    stats = cuda_engine.KernelStats()
    got = cuda_engine.count_tasks(host_ordered(g.view()), pat.static, static, batch0, balance=balance,
                                  stats=stats)
    np.testing.assert_array_equal(got, want)
    assert (stats.pieced > 0) == cuda_engine.device_plans(pat.static).walks_level_two
    assert cuda_engine.count_total(host_ordered(g.view()), pat.static, static, batch0,
                                   balance=balance) == int(want.sum())
    assert_old_side_equals_cpu(g, pat.batch, rng, 50, lambda tasks, view: cuda_engine.count_tasks(
        host_ordered(g.view()), pat.batch, tasks, view, induced, balance=balance))
    if not induced:
        assert_joint_batch_equals_cpu(g.edges(), pat.batch, rng, 50, lambda graph, tasks, view:
                                      cuda_engine.count_tasks(host_ordered(graph), pat.batch, tasks, view,
                                                              balance=balance))


def test_a_batch_below_the_pair_table_threshold_counts_without_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Below PAIR_TABLE_MIN_PAIRS the batch gets no pair table, and its runs take the build that searches
    the partner lists instead: the same counts."""
    from deltamatch.kernels import cuda_engine

    g = loaded_graph(random_edges(np.random.default_rng(8), 60, 300, hubs=3))
    table = plans_of("house", False).batch
    changed = g.internal_edges()[:40]
    tasks = batch_tasks(table, changed, changed.shape[0], OLD)
    view = g.batch_view(changed)
    try:
        with_table = cuda_engine.device_batch(view)
        monkeypatch.setattr(cuda_engine, "PAIR_TABLE_MIN_PAIRS", 41)
        without = cuda_engine.device_batch(view)
        assert with_table.pair_keys is not None and without.pair_keys is None and without.pair_bits == 0
        np.testing.assert_array_equal(cuda_engine.count_tasks(g.view(), table, tasks, without),
                                      cuda_engine.count_tasks(g.view(), table, tasks, with_table))
    finally:
        g.release(view)


@pytest.mark.parametrize("name", ["house", "5-cycle"])
def test_the_memo_counts_memo_plans_as_the_cpu_engine_with_fewer_entries_read(name: str) -> None:
    """Balance.last_memo: per task the CPU engine's counts, on a hub-heavy graph whose level-(k-2)
    vertices recur across a task's prefixes, reading fewer set entries than the pair lists do; the
    same with a table of one width's keys (memo_factor 1), which some task fills and counts before
    it ends (more flushes than memo tasks), with hub tasks deferred and cut into chunks
    (memo_chunks), with the memo's launch beside the rest's (memo_overlap), and with every flush
    published for sharing (memo_share)."""
    from deltamatch.kernels import cuda_engine

    g = loaded_graph(rmat_edges(10, edge_factor=8, seed=4))
    table = plans_of(name, False).batch
    changed = g.internal_edges()[:60]
    tasks = batch_tasks(table, changed, changed.shape[0], OLD)
    view = g.batch_view(changed)
    try:
        want = cpu_engine.count_tasks(g.view(), table, tasks, view)
        runs = {}
        for memo, factor, chunks in ((False, 4, 4), (True, 4, 0), (True, 1, 0), (True, 4, 4)):
            stats = cuda_engine.KernelStats()
            balance = cuda_engine.Balance(last_memo=memo, memo_factor=factor, memo_chunks=chunks,
                                          memo_share=False)
            got = cuda_engine.count_tasks(g.view(), table, tasks, view, balance=balance, stats=stats)
            np.testing.assert_array_equal(got, want)
            runs[memo, factor, chunks] = stats
        overlap = cuda_engine.Balance(memo_overlap=True)  # without statistics, which wait per launch
        np.testing.assert_array_equal(cuda_engine.count_tasks(g.view(), table, tasks, view, balance=overlap),
                                      want)
        shared, unshared = cuda_engine.KernelStats(), cuda_engine.KernelStats()
        for stats, memo_share in ((shared, True), (unshared, False)):
            sharing = cuda_engine.Balance(share_pairs=1, memo_share=memo_share)
            np.testing.assert_array_equal(
                cuda_engine.count_tasks(g.view(), table, tasks, view, balance=sharing, stats=stats), want)
        assert want.sum() > 0 and runs[True, 4, 0].scanned < runs[False, 4, 4].scanned
        assert runs[True, 1, 0].memo_flushes > int((memo_plans(table)[tasks.plan] != 0).sum())
        assert runs[True, 4, 4].deferred > 0 and runs[True, 4, 4].chunks >= runs[True, 4, 4].deferred
        # flushes of at least one pair are published beside the pair lists of the other plans
        assert shared.published > unshared.published
    finally:
        g.release(view)


def test_kernel_stats_report_lane_utilization_and_warp_spread() -> None:
    from deltamatch.kernels import cuda_engine

    g = loaded_graph(rmat_edges(10, edge_factor=8, seed=4))
    pat = plans_of("4-clique", False).static
    stats = cuda_engine.KernelStats()
    cuda_engine.count_total(g.view(), pat, TaskList.static(g.internal_edges()), empty_batch(len(g.vertices)),
                            stats=stats)
    assert stats.tasks > 0 and stats.steps > 0 and 0 < stats.lane_utilization <= 1
    spread, tail = stats.busy_spread()
    assert spread >= tail >= 1


def test_swapped_seeds_put_the_lower_degree_endpoint_where_level_2_iterates() -> None:
    """The shared 4-cycle plan (seed_swap 1) gets its lower-degree endpoint at position 1; the
    house's plans that may not reverse keep their seeds."""
    from deltamatch.kernels import cuda_engine

    g = loaded_graph(random_edges(np.random.default_rng(5), 60, 300, hubs=3))
    deg = g.view().degree
    for name in ("4-cycle", "house"):
        table = plans_of(name, False).batch
        changed = g.internal_edges()[:40]
        tasks = batch_tasks(table, changed, changed.shape[0], OLD)
        got = cuda_engine.swapped_seeds(cuda_engine.device_graph(g.view()), cuda_engine.device_plans(table),
                                        cuda_engine.device_tasks(tasks))
        side = table.seed_swap[tasks.plan]
        flip = (side != 0) & ((side == 1) == (deg[tasks.u] < deg[tasks.v]))
        assert flip.any() and not flip.all()
        np.testing.assert_array_equal(got.u.get(), np.where(flip, tasks.v, tasks.u))
        np.testing.assert_array_equal(got.v.get(), np.where(flip, tasks.u, tasks.v))


@pytest.mark.parametrize("swap", [True, False])
@pytest.mark.parametrize("induced", [False, True])
@pytest.mark.parametrize("name", ["4-cycle", "house", "5-cycle", "P4"])
def test_swapped_seeds_keep_every_task_count(name: str, induced: bool, swap: bool) -> None:
    """Per-task counts (the listing offsets) on hub rows, the old side of a mixed batch, the switch
    on and off, equal the CPU engine's."""
    from deltamatch.kernels import cuda_engine

    rng = np.random.default_rng(41 + induced)
    g = loaded_graph(random_edges(rng, 60, 300, hubs=3))
    pat = plans_of(name, induced)
    assert pat.batch.seed_swap.any()
    setting = cuda_engine.Balance(seed_swap=swap)
    assert_old_side_equals_cpu(g, pat.batch, rng, 60, lambda tasks, view: cuda_engine.count_tasks(
        g.view(), pat.batch, tasks, view, induced, balance=setting))


def test_idle_warps_join_a_long_pair_list() -> None:
    """The seed of K(100, 100) with the most 4-cycles alone (two tasks, one block): its last two
    levels hold thousands of pairs, so the block's other warps find the queue empty and join the
    published list; the counts still equal the CPU engine's.  At the default unroll_min_k (5) the
    4-cycle does not unroll: nothing is published, the counts are the same."""
    from deltamatch.kernels import cuda_engine

    side = 100
    g = loaded_graph(np.stack(np.meshgrid(np.arange(side), np.arange(side, 2 * side)), -1).reshape(-1, 2))
    pat = plans_of("4-cycle", False).static
    batch0 = empty_batch(len(g.vertices))
    every = TaskList.static(g.internal_edges())
    best = int(np.argmax(cpu_engine.count_tasks(g.view(), pat, every, batch0)))
    tasks = TaskList.static(np.asarray([[every.u[best], every.v[best]]]))
    want = cpu_engine.count_tasks(g.view(), pat, tasks, batch0)
    stats, walked = cuda_engine.KernelStats(), cuda_engine.KernelStats()
    balance = cuda_engine.Balance(split=False, share_pairs=1024, unroll_min_k=4)
    got = cuda_engine.count_tasks(g.view(), pat, tasks, batch0, balance=balance, stats=stats)
    np.testing.assert_array_equal(got, want)
    assert want.sum() > 0 and stats.published > 0 and stats.joins > 0 and stats.shared > 0
    default = cuda_engine.Balance(split=False)
    by_default = cuda_engine.count_tasks(g.view(), pat, tasks, batch0, balance=default, stats=walked)
    np.testing.assert_array_equal(by_default, want)
    assert walked.published == 0 and walked.tasks > 0


@pytest.mark.parametrize("induced", [False, True])
@pytest.mark.parametrize("name", ["triangle", "4-cycle", "diamond", "4-clique", "house", "P4"])
def test_degree_ordered_static_count_equals_cpu_engine(name: str, induced: bool) -> None:
    from deltamatch.kernels import cuda_engine

    g = loaded_graph(rmat_edges(10, edge_factor=6, seed=3))
    pat = plans_of(name, induced).static
    batch0 = empty_batch(len(g.vertices))
    want = int(cpu_engine.count_tasks(g.view(), pat, TaskList.static(g.internal_edges()), batch0).sum())
    n = len(g.vertices)
    dg = cuda_engine.degree_ordered(cuda_engine.device_graph(g.view()), n)
    degrees = dg.degree.get()
    assert (np.diff(degrees) >= 0).all() and int(degrees.sum()) == 2 * g.num_edges
    assert cuda_engine.count_total(dg, pat, cuda_engine.static_tasks(dg, n, pat), batch0) == want


METHODS = {"all": {}, "no-orient": {"orient": False}, "no-clique-kernels": {"clique_kernels": False},
           "no-formulas": {"formulas": False}, "no-house-formula": {"house_formula": False},
           "plain": {"orient": False, "clique_kernels": False, "formulas": False}}


@pytest.mark.parametrize("methods", sorted(METHODS))
@pytest.mark.parametrize("induced", [False, True])
@pytest.mark.parametrize("name", ["triangle", "4-clique", "5-clique", "diamond", "4-cycle", "house"])
def test_static_count_equals_cpu_engine_under_every_method(name: str, induced: bool, methods: str) -> None:
    """Every pattern a static method applies to, and the house (matched whatever the methods)."""
    from deltamatch.kernels import cuda_engine

    g = loaded_graph(rmat_edges(10, edge_factor=6, seed=3))
    pat = plans_of(name, induced).static
    n = len(g.vertices)
    want = cpu_static_count(g, pat)
    way = cuda_engine.StaticMethods(**METHODS[methods])
    shares = [cuda_engine.static_count(cuda_engine.device_graph(g.view()), n, pat, part, 3, methods=way)
              for part in range(3)]
    assert sum(shares) == want


def test_degree_oriented_rows_hold_each_edge_once_towards_higher_degree() -> None:
    from deltamatch.kernels import cuda_engine

    g = loaded_graph(random_edges(np.random.default_rng(5), 300, 2000))
    n = len(g.vertices)
    og = cuda_engine.degree_oriented(cuda_engine.device_graph(g.view()), n)
    src, dst = (a.get() for a in cuda_engine.edge_ends(og, n))
    full = cuda_engine.degree_ordered(cuda_engine.device_graph(g.view()), n)
    assert og.oriented and not full.oriented
    assert src.shape[0] == g.num_edges and (src < dst).all()
    full_degree = full.degree.get()
    assert (full_degree[src] <= full_degree[dst]).all()


def oriented_edges(edges: np.ndarray):
    """(oriented device graph, its edges' sources (int32) and targets) of the loaded `edges`."""
    from deltamatch.kernels import cuda_engine

    g = loaded_graph(edges)
    n = len(g.vertices)
    oriented = cuda_engine.degree_oriented(cuda_engine.device_graph(g.view()), n)
    src, dst = cuda_engine.edge_ends(oriented, n)
    return oriented, src.astype(np.int32), dst


def test_edge_triangles_equal_networkx_per_edge() -> None:
    import networkx as nx

    from deltamatch.kernels import cuda_engine

    og, src, dst = oriented_edges(random_edges(np.random.default_rng(6), 200, 3000))
    tri = cuda_engine.edge_triangles(og, src).get()
    # The oriented graph's ids are a relabelling: compare against networkx on that same graph.
    pairs = list(zip(src.get().tolist(), dst.get().tolist(), strict=True))
    nxg = nx.Graph(pairs)
    want = [len(set(nxg[u]) & set(nxg[v])) for u, v in pairs]
    np.testing.assert_array_equal(tri, want)
    assert tri.sum() == sum(nx.triangles(nxg).values()) > 0  # each triangle on its 3 edges


@pytest.mark.parametrize("min_item_cost", [1, 4096])
def test_four_cycles_equal_cpu_engine_with_hubs_cut_into_items(min_item_cost: int) -> None:
    from deltamatch.kernels import cuda_engine

    g = loaded_graph(random_edges(np.random.default_rng(7), 400, 3000, hubs=4))
    n = len(g.vertices)
    pat = plans_of("4-cycle", False).static
    want = cpu_static_count(g, pat)
    ordered = cuda_engine.degree_ordered(cuda_engine.device_graph(g.view()), n)
    got = [cuda_engine.four_cycles(ordered, n, part, 2, min_item_cost=min_item_cost) for part in range(2)]
    assert sum(got) == want > 0


def slot_triangles(g: DynamicGraph):
    """(degree-ordered device graph, t per slot of it (`ordered_triangles`), `edge_triangles` of the
    degree-oriented one) of `g`."""
    from deltamatch.kernels import cuda_engine

    n = len(g.vertices)
    dg = cuda_engine.device_graph(g.view())
    oriented = cuda_engine.degree_oriented(dg, n)
    src = cuda_engine.edge_ends(oriented, n)[0].astype(np.int32)
    edge_tri = cuda_engine.edge_triangles(oriented, src)
    ordered = cuda_engine.degree_ordered(dg, n)
    return ordered, cuda_engine.ordered_triangles(ordered, oriented, src, edge_tri), edge_tri


def test_slot_triangles_are_the_edge_triangles_of_both_slots() -> None:
    import networkx as nx

    from deltamatch.kernels import cuda_engine

    g = loaded_graph(random_edges(np.random.default_rng(6), 200, 3000, hubs=2))
    ordered, slot, _ = slot_triangles(g)
    src, dst = (a.get() for a in cuda_engine.edge_ends(ordered, len(g.vertices)))
    pairs = list(zip(src.tolist(), dst.tolist(), strict=True))
    nxg = nx.Graph(pairs)
    np.testing.assert_array_equal(slot.get(), [len(set(nxg[u]) & set(nxg[v])) for u, v in pairs])


@pytest.mark.parametrize("min_item_cost", [1, 4096])
def test_houses_equal_cpu_engine_with_hubs_cut_into_items(min_item_cost: int) -> None:
    from deltamatch.kernels import cuda_engine

    g = loaded_graph(random_edges(np.random.default_rng(7), 400, 3000, hubs=4))
    n = len(g.vertices)
    ordered, slot, edge_tri = slot_triangles(g)
    weighted = [cuda_engine.house_wedges(ordered, n, slot, part, 2, min_item_cost=min_item_cost)
                for part in range(2)]
    want = cpu_static_count(g, plans_of("house", False).static)
    assert sum(weighted) - 4 * cuda_engine.pair_sum(edge_tri) == want > 0


@pytest.mark.parametrize("k", [4, 5])
def test_clique_bits_equal_cpu_engine_on_rows_of_several_words(k: int) -> None:
    from deltamatch.kernels import cuda_engine

    g = loaded_graph(random_edges(np.random.default_rng(8), 150, 8000, hubs=2))
    n = len(g.vertices)
    pat = plans_of(f"{k}-clique", False).static
    want = cpu_static_count(g, pat)
    oriented = cuda_engine.degree_oriented(cuda_engine.device_graph(g.view()), n)
    assert int(oriented.degree.max()) > 64  # rows of the bit matrices span three words
    got = [cuda_engine.clique_bits(oriented, n, k, part, 3) for part in range(3)]
    assert sum(got) == want > 0


def test_triangle_shares_sum_to_networkx() -> None:
    import networkx as nx

    from deltamatch.kernels import cuda_engine

    edges = random_edges(np.random.default_rng(9), 300, 4000)
    oriented, src, _ = oriented_edges(edges)
    got = [cuda_engine.triangles(oriented, src, part, 3) for part in range(3)]
    assert sum(got) == sum(nx.triangles(nx.Graph(edges.tolist())).values()) // 3 > 0


@pytest.mark.parametrize("on_device", [True, False], ids=["counting-sort", "argsort"])
def test_deferred_sets_are_cut_into_chunks_covering_each_candidate_once(on_device: bool, monkeypatch) -> None:
    """The chunks are the runs of each set's candidates of equal b // target (b: the cost of the
    set's candidates before one), so a candidate is never cut; they fill the first places of the
    order, by decreasing cost class (floor(log2)), each slot once, and every place after them holds
    an empty slot; the counters get their number, total cost and number per class.  The sets lie in
    the arena out of record order, with gaps, and fewer were deferred than the bound the host sizes
    for.  The order on the device and by CuPy's argsort (`DEVICE_CHUNK_ORDER`)."""
    from deltamatch.kernels import cuda_engine

    monkeypatch.setattr(cuda_engine, "DEVICE_CHUNK_ORDER", on_device)
    cp = cuda_engine.cupy()
    rng = np.random.default_rng(4)
    degree = rng.integers(0, 50, size=1000).astype(np.int32)
    degree[:3] = 5000  # hub candidates cost more than a chunk: their set skips slots
    lengths = np.concatenate([[1, 1, 2, 300], rng.integers(1, 700, size=40)]).astype(np.int32)
    gaps = rng.integers(0, 9, size=lengths.shape[0])
    place = rng.permutation(lengths.shape[0])
    ends = np.cumsum(lengths[place] + gaps[place])
    offsets = np.empty(lengths.shape[0], dtype=np.int64)
    offsets[place] = ends - lengths[place]
    arena = rng.integers(0, 1000, size=int(ends[-1])).astype(np.int32)
    counters = cp.zeros(cuda_engine.COUNTERS, dtype=cp.uint64)
    counters[cuda_engine.DEFERRED] = lengths.shape[0]
    n_sets = counters[cuda_engine.DEFERRED:cuda_engine.DEFERRED + 1]
    deferred = cuda_engine._Deferred(cp.asarray(arena), None, None, cp.asarray(offsets), cp.asarray(lengths),
                                     n_sets, 64, 1)
    share = 64 * cuda_engine.AUTO_CHUNK_SHARE
    max_sets = lengths.shape[0] + 5
    entry, lo, hi, order, n_slots = cuda_engine._cost_chunks(deferred, max_sets, cp.asarray(degree), share,
                                                             counters)
    got = counters.get()
    n = int(got[cuda_engine.CHUNKS])
    order = order.get()
    assert n_slots == max_sets + share + 1
    assert len(set(order[:n].tolist())) == n and order.shape == (n_slots,)
    entry, lo, hi = entry.get()[order], lo.get()[order], hi.get()[order]
    assert (lo[:n] < hi[:n]).all() and (lo[n:] == 0).all() and (hi[n:] == 0).all()
    costs = [1 + degree[arena[off: off + length]].astype(np.int64) for off, length in zip(offsets, lengths,
                                                                                             strict=True)]
    assert int(got[cuda_engine.CHUNK_COST]) == sum(int(c.sum()) for c in costs)
    target = max(cuda_engine.MIN_CHUNK_COST, -(-sum(int(c.sum()) for c in costs) // share))
    want = set()
    for e, cost in enumerate(costs):
        run = (np.cumsum(cost) - cost) // target
        heads = np.flatnonzero(np.diff(run, prepend=-1))
        want |= {(e, a, b) for a, b in zip(heads, [*heads[1:], cost.shape[0]], strict=True)}
    assert set(zip(entry[:n].tolist(), lo[:n].tolist(), hi[:n].tolist(), strict=True)) == want
    chunk_cost = np.array([costs[e][a:b].sum() for e, a, b in zip(entry[:n], lo[:n], hi[:n], strict=True)])
    chunk_class = np.floor(np.log2(chunk_cost)).astype(np.int64)
    assert (np.diff(chunk_class) <= 0).all() and chunk_class[0] > chunk_class[-1]
    if on_device:
        classes = cuda_engine.CHUNK_CLASSES
        per_class = got[cuda_engine.CHUNK_CLASS_COUNT: cuda_engine.CHUNK_CLASS_COUNT + classes]
        assert per_class.tolist() == np.bincount(chunk_class, minlength=classes).tolist()


def test_a_deadline_lies_its_budget_ahead_of_the_device_timer() -> None:
    from deltamatch.kernels import cuda_engine

    cp = cuda_engine.cupy()
    deadline = int(cuda_engine._deadline(2.0))
    now = cp.zeros(1, dtype=cp.uint64)
    cuda_engine.kernel("match.cu", "read_timer")((1,), (1,), (now,))
    assert abs(deadline - int(now.get()[0]) - 2e9) < 5e7  # the read's latency, the offset's error
    assert cuda_engine._deadline(None) == 0


def test_a_run_past_its_budget_raises_and_one_within_it_counts() -> None:
    from deltamatch.kernels import cuda_engine

    edges = rmat_edges(12, edge_factor=8, seed=3)
    g = loaded_graph(edges)
    plans = plans_of("4-cycle", False).static
    tasks, batch = TaskList.static(g.internal_edges()), empty_batch(len(g.vertices))
    want = int(cpu_engine.count_tasks(g.view(), plans, tasks, batch).sum())
    assert int(cuda_engine.count_tasks(g.view(), plans, tasks, batch, budget_s=60.0).sum()) == want
    with pytest.raises(cuda_engine.DeadlineExceeded):
        cuda_engine.count_tasks(g.view(), plans, tasks, batch, budget_s=0.0)


@pytest.mark.parametrize("pinned", [True, False], ids=["pinned", "asarray"])
def test_upload_gives_views_equal_to_the_arrays_whatever_their_dtypes(pinned: bool, monkeypatch) -> None:
    from deltamatch.kernels import cuda_engine

    monkeypatch.setattr(cuda_engine, "PINNED_UPLOAD", pinned)
    arrays = [np.arange(5, dtype=np.int32), np.zeros(0, np.int32), np.arange(7, 10, dtype=np.int64),
              np.array([True, False, True]), np.arange(3, dtype=np.int32)[::-1], np.arange(4, dtype=np.int64)]
    for got, want in zip(cuda_engine.upload(*arrays), arrays, strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.get(), want)


def test_upload_addresses_point_at_each_arrays_bytes_in_the_buffer() -> None:
    from deltamatch.kernels import cuda_engine

    arrays = [np.arange(5, dtype=np.int32), np.zeros(0, np.int32), np.arange(7, 10, dtype=np.int64),
              np.arange(3, dtype=np.int32)[::-1]]
    held, addresses = cuda_engine.upload_addresses(*arrays)
    for address, want in zip(addresses, arrays, strict=True):
        start = int(address) - held.data.ptr
        got = held[start : start + want.nbytes].view(want.dtype).get()
        np.testing.assert_array_equal(got, want)


def test_uploads_queued_behind_a_busy_stream_keep_their_contents() -> None:
    """More uploads than staging buffers while the stream is busy: a buffer is packed again only
    after its copy ran, and one outgrown is replaced."""
    from deltamatch.kernels import cuda_engine

    cuda_engine.kernel("match.cu", "hold")((1,), (1,), (np.uint64(50_000_000),))
    sizes = [10, 100_000, 10, 3 * 100_000, 7] * cuda_engine.STAGING_SLOTS
    wants = [np.arange(i, i + size, dtype=np.int64) for i, size in enumerate(sizes)]
    gots = [cuda_engine.upload(want)[0] for want in wants]
    for got, want in zip(gots, wants, strict=True):
        np.testing.assert_array_equal(got.get(), want)
