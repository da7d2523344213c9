"""The CUDA backend: its switches from the environment (no GPU needed); the device-only graph,
the device's cost features and the device replica against the host ones (GPU only)."""

from __future__ import annotations

import numpy as np
import pytest

from deltamatch.kernels import row_layout
from deltamatch.kernels.cuda_engine import Balance, StaticMethods
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.scheduler.plans import compile_plans, shared_plans, static_plan
from deltamatch.scheduler.tasks import NEW, OLD, batch_tasks
from deltamatch.workers.actor import Worker
from deltamatch.workers.cuda_backend import (
    CudaBackend,
    CudaGraph,
    balance_from_env,
    cuda_available,
    hub_bits_from_env,
    plan_update,
    static_methods_from_env,
)
from deltamatch.workers.features import COMMON_SAMPLE, PairFeatures, device_pair_features, pair_features
from deltamatch.workers.graph import DynamicGraph, NormalizedBatch
from deltamatch.workers.protocol import BatchPlan, PatternPlans
from deltamatch.workers.replica import GraphReplica


def test_everything_is_on_by_default() -> None:
    assert balance_from_env({}) == Balance()


def test_split_zero_turns_deferral_off_and_a_number_fixes_the_chunk() -> None:
    assert balance_from_env({"DELTAMATCH_GPU_SPLIT": "0"}) == Balance(split=False)
    assert balance_from_env({"DELTAMATCH_GPU_SPLIT": "256"}) == Balance(chunk=256)


def test_unroll_switch() -> None:
    assert balance_from_env({"DELTAMATCH_GPU_UNROLL": "0"}) == Balance(unroll=False)


def test_steal_switch() -> None:
    assert balance_from_env({"DELTAMATCH_GPU_STEAL": "0"}) == Balance(steal=False)


def test_fill_switch() -> None:
    assert balance_from_env({}) == Balance() and not Balance().fill
    assert balance_from_env({"DELTAMATCH_GPU_FILL": "1"}) == Balance(fill=True)


def test_cost_by_set_switch() -> None:
    assert Balance().cost_by_set
    assert balance_from_env({"DELTAMATCH_GPU_COST_BY_SET": "0"}) == Balance(cost_by_set=False)


def test_pair_window_switch() -> None:
    assert balance_from_env({"DELTAMATCH_GPU_PAIR_WINDOW": "0"}) == Balance(pair_window=False)


def test_seed_swap_switch() -> None:
    assert balance_from_env({"DELTAMATCH_GPU_SEED_SWAP": "0"}) == Balance(seed_swap=False)


def test_hub_first_switch() -> None:
    assert balance_from_env({"DELTAMATCH_GPU_HUB_FIRST": "0"}) == Balance(hub_first=False)


def test_pair_hash_switch() -> None:
    assert balance_from_env({"DELTAMATCH_GPU_PAIR_HASH": "0"}) == Balance(pair_hash=False)


def test_pair_filter_switch() -> None:
    assert balance_from_env({"DELTAMATCH_GPU_PAIR_FILTER": "0"}) == Balance(pair_filter=False)


def test_flat_below_knob() -> None:
    assert balance_from_env({"DELTAMATCH_GPU_FLAT_BELOW": "32"}) == Balance(flat_below=32)
    assert Balance(flat_below=0).unroll_limit() == np.iinfo(np.int32).max
    assert Balance(flat_below=8).unroll_limit() == 8 and Balance(unroll=False).unroll_limit() == 0
    with pytest.raises(ValueError, match="FLAT_BELOW"):
        balance_from_env({"DELTAMATCH_GPU_FLAT_BELOW": "-1"})


def test_unroll_min_k_knob() -> None:
    assert balance_from_env({"DELTAMATCH_GPU_UNROLL_MIN_K": "4"}) == Balance(unroll_min_k=4)
    default = Balance()
    assert default.unroll_min_k == 5 and default.for_pattern(5) == default == default.for_pattern(3)
    assert default.for_pattern(4) == Balance(unroll=False) and Balance(unroll_min_k=4).for_pattern(4).unroll
    assert Balance(unroll_min_k=6).for_pattern(5).unroll_limit() == 0
    with pytest.raises(ValueError, match="UNROLL_MIN_K"):
        balance_from_env({"DELTAMATCH_GPU_UNROLL_MIN_K": "four"})


def test_list_checks_switch() -> None:
    assert balance_from_env({"DELTAMATCH_GPU_LIST_CHECKS": "0"}) == Balance(list_checks=False)


def test_ranked_touched_switch() -> None:
    assert balance_from_env({"DELTAMATCH_GPU_RANKED_TOUCHED": "0"}) == Balance(ranked_touched=False)
    assert Balance(ranked_touched=False).defines() == ("DM_RANKED_TOUCHED=0",)


def test_drive_short_switch() -> None:
    assert balance_from_env({"DELTAMATCH_GPU_DRIVE_SHORT": "0"}) == Balance(drive_short=False)


def test_last_memo_switch_is_on_unless_off() -> None:
    assert balance_from_env({}).last_memo
    assert balance_from_env({"DELTAMATCH_GPU_LAST_MEMO": "0"}) == Balance(last_memo=False)


def test_memo_overlap_switch_is_off_unless_set() -> None:
    assert not balance_from_env({}).memo_overlap
    assert balance_from_env({"DELTAMATCH_GPU_MEMO_OVERLAP": "1"}) == Balance(memo_overlap=True)


def test_staged_lookups_switch_is_off_unless_set() -> None:
    assert not balance_from_env({}).staged_lookups
    assert balance_from_env({"DELTAMATCH_GPU_STAGED_LOOKUPS": "1"}) == Balance(staged_lookups=True)
    assert Balance(staged_lookups=True).defines() == ("DM_STAGED_LOOKUPS=1",)


def test_prefetch_next_switch_is_off_unless_set() -> None:
    assert not balance_from_env({}).prefetch_next
    assert balance_from_env({"DELTAMATCH_GPU_PREFETCH_NEXT": "1"}) == Balance(prefetch_next=True)


def test_warps_per_sm_come_from_the_environment() -> None:
    assert balance_from_env({}).warps_per_sm == 28
    assert balance_from_env({"DELTAMATCH_GPU_WARPS_PER_SM": "24"}) == Balance(warps_per_sm=24)
    assert Balance(warps_per_sm=24).defines() == ("DM_WARPS_PER_BLOCK=8", "DM_WARPS_PER_SM=24")
    assert Balance(warps_per_sm=32).defines() == ("DM_WARPS_PER_BLOCK=8", "DM_WARPS_PER_SM=32")
    assert Balance(warps_per_sm=36).defines() == ("DM_WARPS_PER_SM=36",)
    assert Balance().defines() == ()


@pytest.mark.parametrize("value", ["16", "30", "four"])
def test_warps_per_sm_from_the_environment_must_be_a_built_count(value: str) -> None:
    with pytest.raises(ValueError, match="DELTAMATCH_GPU_WARPS_PER_SM"):
        balance_from_env({"DELTAMATCH_GPU_WARPS_PER_SM": value})


@pytest.mark.parametrize("warps", [3, 48])
def test_a_balance_of_other_warps_per_sm_is_refused(warps: int) -> None:
    with pytest.raises(ValueError, match="warps_per_sm"):
        Balance(warps_per_sm=warps)


def test_memo_share_switch_is_on_unless_off() -> None:
    assert balance_from_env({}).memo_share
    assert balance_from_env({"DELTAMATCH_GPU_MEMO_SHARE": "0"}) == Balance(memo_share=False)


def test_memo_chunks_per_warp_come_from_the_environment() -> None:
    assert balance_from_env({}).memo_chunks == Balance().memo_chunks
    assert balance_from_env({"DELTAMATCH_GPU_MEMO_CHUNKS": "0"}) == Balance(memo_chunks=0)
    assert balance_from_env({"DELTAMATCH_GPU_MEMO_CHUNKS": "16"}) == Balance(memo_chunks=16)


@pytest.mark.parametrize("value", ["-1", "four", "1.5"])
def test_memo_chunks_must_be_a_non_negative_integer(value: str) -> None:
    with pytest.raises(ValueError, match="DELTAMATCH_GPU_MEMO_CHUNKS"):
        balance_from_env({"DELTAMATCH_GPU_MEMO_CHUNKS": value})


def test_seed_pieces_and_their_least_degree_come_from_the_environment() -> None:
    assert balance_from_env({}).seed_pieces == Balance().seed_pieces == 32
    assert balance_from_env({"DELTAMATCH_GPU_SEED_PIECES": "0"}) == Balance(seed_pieces=0)
    assert balance_from_env({"DELTAMATCH_GPU_SEED_PIECES": "8",
                             "DELTAMATCH_GPU_PIECE_MIN_DEGREE": "512"}) == Balance(seed_pieces=8,
                                                                                   piece_min_degree=512)


@pytest.mark.parametrize("value", ["33", "-1", "many"])
def test_seed_pieces_are_at_most_a_warp(value: str) -> None:
    """match.cu's gather_pieces joins a task's pieces one lane each."""
    with pytest.raises(ValueError, match="DELTAMATCH_GPU_SEED_PIECES"):
        balance_from_env({"DELTAMATCH_GPU_SEED_PIECES": value})
    with pytest.raises(ValueError, match="seed_pieces"):
        Balance(seed_pieces=33)


@pytest.mark.parametrize("factor", [1, 4])
def test_a_memo_run_s_scratch_holds_its_table_at_half_load_and_a_flush(factor: int) -> None:
    """Beyond a plain run's scratch, for a memo of factor * width keys: keys and multiplicities of
    the smallest power-of-two table of at least twice as many, and a flush's keys, weights, 8-byte
    source pointers and pair offsets (match.cu: warp_scratch)."""
    from deltamatch.kernels import cuda_engine

    for width in (1, 32, 33, 1000):
        held = factor * width
        extra = cuda_engine.scratch_ints(width, 5, factor) - cuda_engine.scratch_ints(width, 5)
        table = (extra - 6 * held - 2) // 2
        assert table & (table - 1) == 0 and 2 * held <= table < 4 * held


def test_the_default_memo_factor_is_the_kernel_s_and_another_is_a_build() -> None:
    from deltamatch.kernels import cuda_engine

    source = (cuda_engine.KERNEL_DIR / "match_body.cuh").read_text()
    assert f"#define DM_MEMO_FACTOR {Balance().memo_factor}\n" in source
    assert Balance(memo_factor=1).defines() == ("DM_MEMO_FACTOR=1",)


def test_builds_carry_line_tables_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    from deltamatch.kernels import cuda_engine

    assert "-lineinfo" not in cuda_engine.compile_options("90")
    monkeypatch.setattr(cuda_engine, "LINEINFO", True)
    assert cuda_engine.compile_options("90")[-1] == "-lineinfo"


def test_defines_name_the_builds_of_the_switches_flipped() -> None:
    assert Balance().defines() == ()
    assert Balance(pair_window=False, hub_first=False).defines() == ("DM_PAIR_WINDOW=0", "DM_HUB_FIRST=0")
    assert Balance(pair_hash=False).defines() == ("DM_PAIR_HASH=0",)
    assert Balance(drive_short=False).defines() == ("DM_DRIVE_SHORT=0",)
    assert Balance(prefetch_next=True, drive_short=False).defines() == ("DM_DRIVE_SHORT=0",
                                                                        "DM_PREFETCH_NEXT=1")


def test_a_batch_without_a_pair_table_runs_the_searching_build() -> None:
    assert Balance().defines(pair_table=False) == ("DM_PAIR_HASH=0",)
    assert Balance().builds() == ((), ("DM_PAIR_HASH=0",))
    assert Balance(pair_hash=False).builds() == (("DM_PAIR_HASH=0",),)


def test_only_batches_of_many_pairs_get_a_pair_table() -> None:
    from deltamatch.kernels import cuda_engine

    n = cuda_engine.PAIR_TABLE_MIN_PAIRS
    a, b = np.arange(n, dtype=np.int32), np.arange(1, n + 1, dtype=np.int32)
    assert cuda_engine.pair_table_arrays(a[:-1], b[:-1], a[:-1]) == ()
    keys, ranks = cuda_engine.pair_table_arrays(a, b, a)
    assert keys.shape == ranks.shape and keys.shape[0] >= 2 * n


@pytest.mark.parametrize("switch", ["orient", "clique_kernels", "formulas", "house_formula"])
def test_static_method_switches(switch: str) -> None:
    assert static_methods_from_env({}) == StaticMethods()
    name = f"DELTAMATCH_GPU_{switch.upper()}"
    assert static_methods_from_env({name: "0"}) == StaticMethods(**{switch: False})
    with pytest.raises(ValueError, match=name):
        static_methods_from_env({name: "no"})


@pytest.mark.parametrize("env", [{"DELTAMATCH_GPU_SPLIT": "-1"}, {"DELTAMATCH_GPU_SPLIT": "many"},
                                 {"DELTAMATCH_GPU_UNROLL": "yes"}, {"DELTAMATCH_GPU_STEAL": "2"},
                                 {"DELTAMATCH_GPU_FILL": "x"}, {"DELTAMATCH_GPU_PAIR_WINDOW": "off"}])
def test_bad_values_are_refused(env: dict) -> None:
    with pytest.raises(ValueError, match="DELTAMATCH_GPU_"):
        balance_from_env(env)


def test_hub_bits_switch() -> None:
    assert hub_bits_from_env({}) and not hub_bits_from_env({"DELTAMATCH_GPU_HUB_BITS": "0"})
    with pytest.raises(ValueError, match="DELTAMATCH_GPU_HUB_BITS"):
        hub_bits_from_env({"DELTAMATCH_GPU_HUB_BITS": "on"})


def test_the_update_plan_groups_counts_and_places_every_touched_row() -> None:
    rng = np.random.default_rng(7)
    n = 200
    degree = rng.integers(0, 40, size=n).astype(np.int32)
    offsets, capacity, _, used, _ = row_layout.packed(degree, row_layout.DEVICE, np)
    pairs = np.unique(np.sort(rng.integers(0, n, size=(300, 2)), axis=1), axis=0)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    deleted, inserted = pairs[:60], pairs[60:]
    plan = plan_update(deleted, inserted, degree, offsets, capacity, used)
    directed = np.concatenate([pairs, pairs[:, ::-1]])
    is_insert = np.concatenate([np.arange(pairs.shape[0]) >= 60] * 2)
    assert plan.rows.tolist() == np.unique(directed[:, 0]).tolist()
    for r, v in enumerate(plan.rows.tolist()):
        mine = directed[:, 0] == v
        nbrs = plan.upd_nbr[plan.upd_ptr[r] : plan.upd_ptr[r + 1]]
        assert nbrs.tolist() == sorted(directed[mine, 1].tolist())
        ins = int(is_insert[mine].sum())
        assert plan.new_degree[r] == degree[v] + ins - (int(mine.sum()) - ins)
        assert plan.ins_prefix[plan.upd_ptr[r + 1]] - plan.ins_prefix[plan.upd_ptr[r]] == ins
    np.testing.assert_array_equal(np.diff(plan.stage_ptr), plan.new_degree)
    np.testing.assert_array_equal(np.diff(plan.item_ptr), degree[plan.rows] + np.diff(plan.upd_ptr))
    want = row_layout.relocate(offsets[plan.rows], capacity[plan.rows], plan.new_degree, used,
                               row_layout.DEVICE)
    np.testing.assert_array_equal(plan.new_offsets, want[0])
    np.testing.assert_array_equal(plan.new_capacity, want[1])
    assert (plan.pool_used, plan.moved, plan.grown) == want[2:] and plan.moved > 0


# The device-only graph, its features and routing (GPU only: these skip without CuPy and a device).

needs_gpu = pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA device")


def random_pairs(rng: np.random.Generator, n: int, m: int, hubs: int = 2) -> np.ndarray:
    """m random pairs on n vertices plus a few hubs joined to a third of them; no self-loops."""
    pairs = rng.integers(0, n, size=(m, 2))
    hub_pairs = np.stack([np.repeat(np.arange(hubs), n // 3), rng.integers(0, n, size=hubs * (n // 3))], 1)
    pairs = np.concatenate([pairs, hub_pairs])
    return pairs[pairs[:, 0] != pairs[:, 1]]


def mixed_batch(rng: np.random.Generator, present: np.ndarray, n: int, inserts: int,
                deletes: int) -> tuple[np.ndarray, np.ndarray]:
    """(insert, delete): random pairs over n + 8 vertices (so some are new) and present edges,
    with a pair in both lists and a duplicate."""
    ins = random_pairs(rng, n + 8, inserts, hubs=1)
    k = min(present.shape[0], deletes)
    dele = present[rng.choice(present.shape[0], size=k, replace=False)] if k else np.zeros((0, 2), np.int64)
    return np.concatenate([ins, dele[:2], ins[:1]]), dele


def assert_same_batch(a: NormalizedBatch, b: NormalizedBatch) -> None:
    for name in ("deleted", "inserted", "new_vertices"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert (a.ignored, a.vertex_base) == (b.ignored, b.vertex_base)


def assert_same_graph(device: CudaGraph, host: DynamicGraph) -> None:
    """Same names, rows (content and order), edges and stats; the device rows read back."""
    np.testing.assert_array_equal(device.vertices.external, host.vertices.external)
    offsets, degree, pool = device.rows.rows_host()
    n = len(host.vertices)
    np.testing.assert_array_equal(degree[:n], host.degree[:n])
    assert not degree[n:].any()
    for v in range(n):
        np.testing.assert_array_equal(pool[offsets[v]: offsets[v] + degree[v]],
                                      host.pool[host.offsets[v]: host.offsets[v] + host.degree[v]])
    np.testing.assert_array_equal(device.edges(), host.edges())
    np.testing.assert_array_equal(device.internal_edges(), host.internal_edges())
    assert (device.num_vertices, device.num_edges, device.max_degree) == (
        host.num_vertices, host.num_edges, host.max_degree)


def follow(device: CudaGraph, host: DynamicGraph, rng: np.random.Generator, rounds: int, n: int,
           inserts: int = 400, deletes: int = 250) -> None:
    """Random mixed batches, each normalized on both graphs (equal) and applied to both."""
    for _ in range(rounds):
        ins, dele = mixed_batch(rng, host.edges(), n, inserts, deletes)
        batch = host.normalize(ins, dele)
        assert_same_batch(device.normalize(ins, dele), batch)
        device.apply(batch)
        host.apply(batch)


@pytest.mark.gpu
@needs_gpu
def test_device_graph_follows_the_host_graph_through_relocations_and_compaction() -> None:
    rng = np.random.default_rng(5)
    device, host = CudaGraph(), DynamicGraph()
    follow(device, host, rng, 20, 300)
    assert device.rows.relocations > 0
    assert_same_graph(device, host)
    assert_live_capacity_is_kept(device.rows)
    assert_host_copy_is_kept(device.rows)
    before = device.rows.compactions
    device.rows.compact()
    assert device.rows.compactions == before + 1
    assert_same_graph(device, host)
    assert_host_copy_is_kept(device.rows)
    follow(device, host, rng, 20, 300)
    assert_same_graph(device, host)
    assert_live_capacity_is_kept(device.rows)
    assert_host_copy_is_kept(device.rows)


@pytest.mark.gpu
@needs_gpu
def test_hub_bitmaps_follow_the_rows_through_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """After every batch (deletions and new vertices among them) and a compaction, every bitmap of
    the view equals its row: kept by the batches (hub_bits_apply) while the rows do not grow in
    number nor the edges double, built again when they do, for the rows of at least HUB_MIN_DEGREE
    at that build."""
    from deltamatch.kernels import cuda_engine

    monkeypatch.setattr(cuda_engine, "HUB_MIN_DEGREE", 12)
    rng = np.random.default_rng(8)
    device, host = CudaGraph(), DynamicGraph()
    device.rows.hub_bits = True
    kept = 0
    for round_ in range(6):
        before = device.rows.view().hub_bits if round_ else None
        follow(device, host, rng, 1, 200 + 40 * round_)
        if round_ == 3:
            device.rows.compact()
        view = device.rows.view()
        rows, words = view.degree.shape[0], -(-view.degree.shape[0] // 32)
        hub_row, bits = view.hub_row.get(), view.hub_bits.get()
        base = view.hub_bits.data.ptr
        if before is not None and view.hub_bits is before:
            kept += 1
        else:  # built now: a bitmap for every row of at least HUB_MIN_DEGREE, none for the others
            np.testing.assert_array_equal(hub_row != 0, view.degree.get() >= 12)
        for v in np.flatnonzero(hub_row):
            slot = (int(hub_row[v]) - base) // (4 * words)
            bitmap = np.unpackbits(bits[slot * words: (slot + 1) * words].view(np.uint8), bitorder="little")
            lo = host.offsets[v]
            np.testing.assert_array_equal(np.flatnonzero(bitmap[:rows]), host.pool[lo: lo + host.degree[v]])
    assert kept > 0  # some batches updated the bitmaps in place


def assert_host_copy_is_kept(rows) -> None:
    """The host copy of the row metadata, which batches are planned from, equals the device's."""
    for name in ("offsets", "degree", "capacity"):
        np.testing.assert_array_equal(getattr(rows, "host_" + name), getattr(rows, name).get())


def assert_live_capacity_is_kept(rows) -> None:
    """The incremental Σ capacity (the compaction test's input) equals the real one; blocks
    are handed out whole, so the used pool ends on a block boundary."""
    assert rows.live_capacity == int(rows.capacity[: rows.n].get().sum())
    assert rows.pool_used % row_layout.DEVICE.block == 0 and rows.pool_used <= rows.pool.shape[0]


@pytest.mark.gpu
@needs_gpu
def test_device_edge_test_equals_the_host_one() -> None:
    rng = np.random.default_rng(2)
    device, host = CudaGraph(), DynamicGraph()
    follow(device, host, rng, 3, 200)
    u = rng.integers(0, len(host.vertices), size=5000)
    v = rng.integers(0, len(host.vertices), size=5000)
    np.testing.assert_array_equal(device.has_edges(u, v), host.has_edges(u, v))
    assert device.has_edges(np.zeros(0, np.int64), np.zeros(0, np.int64)).shape == (0,)


def assert_same_features(got: PairFeatures, want: PairFeatures) -> None:
    np.testing.assert_array_equal(got.pairs, want.pairs)
    for side in ("old", "new"):
        a, b = got.side(side), want.side(side)
        for name in ("deg0", "deg1", "common"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=f"{side}.{name}")
        assert (a.num_vertices, a.avg_degree, a.neighbour_degree, a.square_sum) == (
            b.num_vertices, b.avg_degree, b.neighbour_degree, b.square_sum), side


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("sample", [0, 3, COMMON_SAMPLE])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_device_features_equal_host_features(seed: int, sample: int) -> None:
    """On random graphs with hubs and mixed batches (new vertices, a hub's many partners, so
    that sampling and scaling act), through several batches."""
    rng = np.random.default_rng(seed)
    device, host = CudaGraph(), DynamicGraph()
    follow(device, host, rng, 1, 120, inserts=900, deletes=0)
    square_sum = None
    for _ in range(4):
        ins, dele = mixed_batch(rng, host.edges(), 120, 150, 80)
        hub = np.stack([np.zeros(60, np.int64), rng.integers(1, 128, size=60)], 1)
        batch = host.normalize(np.concatenate([ins, hub]), dele)
        vertices = host.num_vertices
        want = pair_features(host, batch, vertices, sample=sample, square_sum_old=square_sum)
        got = device_pair_features(device.rows, batch, vertices, sample=sample, square_sum_old=square_sum)
        assert_same_features(got, want)
        lean = device_pair_features(device.rows, batch, vertices, common=False, sample=sample)
        assert_same_features(lean, pair_features(host, batch, vertices, common=False, sample=sample))
        square_sum = want.new.square_sum
        device.apply(batch)
        host.apply(batch)


@pytest.mark.gpu
@needs_gpu
def test_device_features_of_a_batch_on_an_empty_graph() -> None:
    device, host = CudaGraph(), DynamicGraph()
    batch = host.normalize([[1, 2], [2, 3]], None)
    assert_same_features(device_pair_features(device.rows, batch, 0), pair_features(host, batch, 0))


@pytest.mark.gpu
@needs_gpu
def test_the_backend_computes_features_on_the_device() -> None:
    rng = np.random.default_rng(4)
    backend, host = CudaBackend(), DynamicGraph()
    follow(backend.graph, host, rng, 2, 100)
    batch = host.normalize(*mixed_batch(rng, host.edges(), 100, 50, 30))
    assert_same_features(backend.pair_features(batch, host.num_vertices),
                         pair_features(host, batch, host.num_vertices))
    assert backend._host is None


def plans_of(name: str, induced: bool = False) -> PatternPlans:
    pattern = parse_pattern(name, induced=induced)
    return PatternPlans(compile_plans(pattern, shared_plans(pattern)),
                        compile_plans(pattern, [static_plan(pattern)]))


PATTERN_SET = {1: ("triangle", False), 2: ("diamond", False), 3: ("4-cycle", True), 4: ("house", False)}


def execute_both(replicas: list[GraphReplica], version: int, insert, delete,
                 on_cpu: frozenset = frozenset(), recounts: frozenset = frozenset(),
                 kept: frozenset = frozenset()) -> None:
    """One batch on every replica (each normalizing it itself); counts and listed rows equal.
    The groups in `recounts` get no tasks and count by a whole-graph recount (not a share: the
    engines split one differently, only the shares' sum agrees); the patterns in `kept` are
    counted from a replica's kept triangles where it keeps them."""
    results = []
    for replica in replicas:
        batch = replica.normalize(insert, delete)
        changed, n_del = batch.changed, batch.deleted.shape[0]
        counted = kept & replica.kept
        tasks = {}
        for pid, p in replica.patterns.items():
            sides = {side: batch_tasks(p.batch, changed, n_del, side) for side in (OLD, NEW)}
            tasks[pid] = tuple(t.take(slice(0)) if (pid, side) in recounts or pid in counted else t
                               for side, t in sides.items())
        limit = 0 if recounts or kept else 10**9
        results.append(replica.execute(BatchPlan(version, batch, tasks, limit, on_cpu, counted, recounts)))
    for res in results[1:]:
        for side in ("removed", "added"):
            for pid in PATTERN_SET:
                a, b = getattr(res, side)[pid], getattr(results[0], side)[pid]
                assert a.count == b.count, (version, side, pid)
                np.testing.assert_array_equal(a.rows, b.rows)


def loaded_replicas(rng: np.random.Generator, n: int, m: int) -> tuple[GraphReplica, GraphReplica]:
    """A CUDA and a CPU replica on the same random graph, every pattern of PATTERN_SET registered."""
    gpu, cpu = GraphReplica("cuda"), GraphReplica("cpu")
    base = random_pairs(rng, n, m)
    for replica in (gpu, cpu):
        replica.apply_only(1, replica.normalize(base, None))
        for pid, (name, induced) in PATTERN_SET.items():
            replica.register(pid, plans_of(name, induced))
    return gpu, cpu


def assert_same_static(replicas: list[GraphReplica]) -> None:
    for pid in PATTERN_SET:
        counts = {r.static_count(pid, 0, 1) for r in replicas}
        assert len(counts) == 1, (pid, counts)
        listed = [r.static_list(pid, 0, 1) for r in replicas]
        for rows in listed[1:]:
            np.testing.assert_array_equal(rows, listed[0])
    assert len({r.stats() for r in replicas}) == 1


@pytest.mark.gpu
@needs_gpu
def test_device_only_replica_equals_the_cpu_replica_across_batches_and_a_restore() -> None:
    """Random mixed batches (new vertices, pairs in both lists, hubs) through `execute` on a
    CUDA and a CPU replica; then a CUDA worker rebuilt from a snapshot + log goes on equal."""
    rng = np.random.default_rng(17)
    gpu, cpu = loaded_replicas(rng, 60, 260)
    assert_same_static([gpu, cpu])
    for version in range(2, 5):
        execute_both([gpu, cpu], version, *mixed_batch(rng, cpu.graph.edges(), 60 + version, 30, 20))
    snapshot = (cpu.graph.vertices.external.copy(), cpu.graph.edges(), 4)
    log = []
    for version in range(5, 8):
        ins, dele = mixed_batch(rng, cpu.graph.edges(), 60 + version, 30, 20)
        execute_both([gpu, cpu], version, ins, dele)
        log.append((version, ins, dele))
    assert_same_static([gpu, cpu])
    worker = Worker("cuda")
    worker.rebuild(*snapshot, log, {pid: gpu.patterns[pid] for pid in PATTERN_SET})
    restored = worker.replica
    assert isinstance(restored.backend, CudaBackend) and restored.version == 7
    np.testing.assert_array_equal(restored.graph.vertices.external, cpu.graph.vertices.external)
    np.testing.assert_array_equal(restored.graph.internal_edges(), cpu.graph.internal_edges())
    assert_same_static([restored, cpu])
    for version in range(8, 11):
        ins, dele = mixed_batch(rng, cpu.graph.edges(), 70, 30, 20)
        execute_both([restored, gpu, cpu], version, ins, dele)
    assert_same_static([restored, gpu, cpu])


@pytest.mark.gpu
@needs_gpu
def test_groups_routed_to_the_cpu_run_on_a_host_copy_made_on_first_use() -> None:
    rng = np.random.default_rng(23)
    gpu, cpu = loaded_replicas(rng, 50, 220)
    ins, dele = mixed_batch(rng, cpu.graph.edges(), 50, 30, 20)
    execute_both([gpu, cpu], 2, ins, dele)
    assert gpu.backend._host is None
    routed = frozenset({(1, "old"), (2, "new"), (3, "old"), (3, "new")})
    for version in range(3, 7):
        ins, dele = mixed_batch(rng, cpu.graph.edges(), 55, 30, 20)
        execute_both([gpu, cpu], version, ins, dele, routed if version % 2 else frozenset())
        host = gpu.backend.host_graph()
        np.testing.assert_array_equal(host.edges(), cpu.graph.edges())
        np.testing.assert_array_equal(host.vertices.external, cpu.graph.vertices.external)


@pytest.mark.gpu
@needs_gpu
def test_recounted_groups_equal_the_cpu_replica_with_the_deletions_applied_first() -> None:
    """Count-only batches whose diamond and house sides are recounted (the old side on G_old less
    the deletions, which the replica applies before the insertions)."""
    rng = np.random.default_rng(29)
    gpu, cpu = loaded_replicas(rng, 50, 260)
    recounts = frozenset((pid, side) for pid in (2, 4) for side in (OLD, NEW))
    for version in range(2, 6):
        ins, dele = mixed_batch(rng, cpu.graph.edges(), 55, 30, 20)
        execute_both([gpu, cpu], version, ins, dele, recounts=recounts)
    np.testing.assert_array_equal(gpu.graph.internal_edges(), cpu.graph.internal_edges())


@pytest.mark.gpu
@needs_gpu
def test_kept_diamonds_add_up_over_the_halves_of_a_batch_whose_old_side_is_recounted() -> None:
    """The diamond counted from the kept triangles while the house recounts both sides: the
    deletions and the insertions update the triangles in turn, and both sides' diamonds count."""
    rng = np.random.default_rng(31)
    gpu, cpu = loaded_replicas(rng, 50, 260)
    assert gpu.kept == {2} and not cpu.kept
    for version in range(2, 6):
        ins, dele = mixed_batch(rng, cpu.graph.edges(), 55, 30, 20)
        execute_both([gpu, cpu], version, ins, dele, recounts=frozenset({(4, OLD), (4, NEW)}),
                     kept=frozenset({2}))
