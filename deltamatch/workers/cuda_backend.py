"""The CUDA backend: the graph on the device only, and the CUDA engine.

`GpuGraph` keeps every row sorted in a block of slack on the device, in the layout of
`kernels/row_layout` (the host `DynamicGraph`'s too, with 32-slot blocks).  A batch is
planned on the host, from a host copy of the rows' offsets, degrees and capacities, and
applied on the device: touched rows are merged with their updates in parallel (graph.cu),
rows that outgrow their block move to fresh blocks appended to the pool, and the pool is
compacted when more than half of it is dead.  `CudaGraph` adds the vertex names (the one
host-side part: listings are mapped to external ids there) and `DynamicGraph`'s interface,
so snapshots, stats, recounts, normalization and the cost features read the device rows.
CuPy is imported lazily (inside the worker), never at import time.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit

from deltamatch.kernels import cuda_engine as engine
from deltamatch.kernels import row_layout
from deltamatch.kernels.pair_order import by_source
from deltamatch.kernels.pair_table import changed_pair_filter
from deltamatch.kernels.plan_table import BatchView, PlanTable, TaskList
from deltamatch.workers.features import COMMON_SAMPLE, PairFeatures, device_pair_features
from deltamatch.workers.graph import (
    DynamicGraph,
    NormalizedBatch,
    VertexMap,
    admit_vertices,
    grouped_updates,
    normalize_batch,
    unique_pairs,
)
from deltamatch.workers.triangle_table import TriangleTable, plan_side

LAYOUT = row_layout.DEVICE
SPLIT_ENV = "DELTAMATCH_GPU_SPLIT"  # "auto" (default), "0" (off) or a fixed chunk of level-2 candidates
UNROLL_ENV = "DELTAMATCH_GPU_UNROLL"  # "1" (default) or "0"
STEAL_ENV = "DELTAMATCH_GPU_STEAL"  # "1" (default) or "0"
FILL_ENV = "DELTAMATCH_GPU_FILL"  # "0" (default) or "1": with stealing, every resident warp launched
PAIR_WINDOW_ENV = "DELTAMATCH_GPU_PAIR_WINDOW"  # "1" (default) or "0": pair loop owners from a window
HUB_FIRST_ENV = "DELTAMATCH_GPU_HUB_FIRST"  # "1" (default) or "0": a matched hub's bitmap tests any candidate
PAIR_HASH_ENV = "DELTAMATCH_GPU_PAIR_HASH"  # "1" (default) or "0": changed pairs looked up in a pair table
PAIR_FILTER_ENV = "DELTAMATCH_GPU_PAIR_FILTER"  # "1" (default) or "0": changed-pair lookups filtered first
DRIVE_SHORT_ENV = "DELTAMATCH_GPU_DRIVE_SHORT"  # "1" (default) or "0": a short row for a long base set
RANKED_TOUCHED_ENV = "DELTAMATCH_GPU_RANKED_TOUCHED"  # "1" (default) or "0": lookups for touched vertices
PREFETCH_NEXT_ENV = "DELTAMATCH_GPU_PREFETCH_NEXT"  # "0" (default) or "1": a set's next candidates read early
STAGED_LOOKUPS_ENV = "DELTAMATCH_GPU_STAGED_LOOKUPS"  # "0" (default) or "1": pair lookups 32 at a time
WARPS_PER_SM_ENV = "DELTAMATCH_GPU_WARPS_PER_SM"  # "28" (default), "24", "32" or "36": warps an SM
LAST_MEMO_ENV = "DELTAMATCH_GPU_LAST_MEMO"  # "1" (default) or "0": memo plans' last level once per task
MEMO_OVERLAP_ENV = "DELTAMATCH_GPU_MEMO_OVERLAP"  # "0" (default) or "1": the memo's launch on its own stream
MEMO_SHARE_ENV = "DELTAMATCH_GPU_MEMO_SHARE"  # "1" (default) or "0": the memo's long flushes shared
MEMO_CHUNKS_ENV = "DELTAMATCH_GPU_MEMO_CHUNKS"  # deferred memo tasks' chunks per warp (0, default: none)
FLAT_BELOW_ENV = "DELTAMATCH_GPU_FLAT_BELOW"  # pairs a candidate below which lists run flat (0: always)
UNROLL_MIN_K_ENV = "DELTAMATCH_GPU_UNROLL_MIN_K"  # the fewest pattern vertices that unroll (default 5)
COST_BY_SET_ENV = "DELTAMATCH_GPU_COST_BY_SET"  # "1" (default) or "0": chunk costs bounded by the set
SEED_PIECES_ENV = "DELTAMATCH_GPU_SEED_PIECES"  # pieces a heavy seed's level-2 set is built in (0: off)
PIECE_MIN_DEGREE_ENV = "DELTAMATCH_GPU_PIECE_MIN_DEGREE"  # the least seed degrees that are pieced
LIST_CHECKS_ENV = "DELTAMATCH_GPU_LIST_CHECKS"  # "1" (default) or "0": a pair list's checks made once
SEED_SWAP_ENV = "DELTAMATCH_GPU_SEED_SWAP"  # "1" (default) or "0": reversible seeds from the shorter row
ORIENT_ENV = "DELTAMATCH_GPU_ORIENT"  # "1" (default) or "0": static cliques on the oriented graph
CLIQUE_KERNELS_ENV = "DELTAMATCH_GPU_CLIQUE_KERNELS"  # "1" (default) or "0": static cliques, own kernels
FORMULAS_ENV = "DELTAMATCH_GPU_FORMULAS"  # "1" (default) or "0": static counts by formula where one holds
HOUSE_FORMULA_ENV = "DELTAMATCH_GPU_HOUSE_FORMULA"  # "0" (default) or "1": the house's static count too
HUB_BITS_ENV = "DELTAMATCH_GPU_HUB_BITS"  # "1" (default) or "0": adjacency tests on hub rows by bitmap
KEPT_TRIANGLES_ENV = "DELTAMATCH_GPU_KEPT_TRIANGLES"  # "1" (default) or "0": diamond deltas, kept triangles
JOINT_SIDES_ENV = "DELTAMATCH_GPU_JOINT_SIDES"  # "1" (default) or "0": a batch's two sides in one count
HUB_REBUILD_GROWTH = 2  # the hub bitmaps are chosen again once the edges have grown this many-fold


def _switch(env: dict, name: str, default: str = "1") -> bool:
    value = env.get(name, default).strip()
    if value not in ("0", "1"):
        raise ValueError(f"{name}: expected 0 or 1, got {value!r}")
    return value == "1"


def _count(env: dict, name: str, default: int) -> int:
    value = env.get(name, str(default)).strip()
    if not value.isdigit():
        raise ValueError(f"{name}: expected a non-negative integer, got {value!r}")
    return int(value)


def balance_from_env(env: dict | None = None) -> engine.Balance:
    """The Balance that DELTAMATCH_GPU_SPLIT, DELTAMATCH_GPU_UNROLL, DELTAMATCH_GPU_STEAL,
    DELTAMATCH_GPU_FILL, DELTAMATCH_GPU_PAIR_WINDOW, DELTAMATCH_GPU_SEED_SWAP,
    DELTAMATCH_GPU_HUB_FIRST, DELTAMATCH_GPU_PAIR_HASH, DELTAMATCH_GPU_PAIR_FILTER,
    DELTAMATCH_GPU_LIST_CHECKS, DELTAMATCH_GPU_DRIVE_SHORT, DELTAMATCH_GPU_RANKED_TOUCHED,
    DELTAMATCH_GPU_LAST_MEMO,
    DELTAMATCH_GPU_MEMO_OVERLAP, DELTAMATCH_GPU_MEMO_SHARE, DELTAMATCH_GPU_MEMO_CHUNKS,
    DELTAMATCH_GPU_FLAT_BELOW, DELTAMATCH_GPU_UNROLL_MIN_K, DELTAMATCH_GPU_COST_BY_SET,
    DELTAMATCH_GPU_PREFETCH_NEXT, DELTAMATCH_GPU_STAGED_LOOKUPS,
    DELTAMATCH_GPU_SEED_PIECES (at most 32; 0 turns them off),
    DELTAMATCH_GPU_PIECE_MIN_DEGREE and DELTAMATCH_GPU_WARPS_PER_SM (24, 28, 32 or 36) select (defaults:
    all on but filling, the memo's overlap, the next candidates' early read and staged lookups; 28 warps
    an SM)."""
    env = os.environ if env is None else env
    split = env.get(SPLIT_ENV, "auto").strip().lower() or "auto"
    switches = {name: _switch(env, var) for name, var in
                (("unroll", UNROLL_ENV), ("steal", STEAL_ENV), ("pair_window", PAIR_WINDOW_ENV),
                 ("seed_swap", SEED_SWAP_ENV), ("hub_first", HUB_FIRST_ENV), ("pair_hash", PAIR_HASH_ENV),
                 ("pair_filter", PAIR_FILTER_ENV), ("list_checks", LIST_CHECKS_ENV),
                 ("drive_short", DRIVE_SHORT_ENV), ("ranked_touched", RANKED_TOUCHED_ENV),
                 ("last_memo", LAST_MEMO_ENV), ("memo_share", MEMO_SHARE_ENV),
                 ("cost_by_set", COST_BY_SET_ENV))}
    switches["fill"] = _switch(env, FILL_ENV, default="0")
    switches["memo_overlap"] = _switch(env, MEMO_OVERLAP_ENV, default="0")
    switches["prefetch_next"] = _switch(env, PREFETCH_NEXT_ENV, default="0")
    switches["staged_lookups"] = _switch(env, STAGED_LOOKUPS_ENV, default="0")
    switches["memo_chunks"] = _count(env, MEMO_CHUNKS_ENV, engine.Balance.memo_chunks)
    switches["flat_below"] = _count(env, FLAT_BELOW_ENV, engine.Balance.flat_below)
    switches["unroll_min_k"] = _count(env, UNROLL_MIN_K_ENV, engine.Balance.unroll_min_k)
    pieces = switches["seed_pieces"] = _count(env, SEED_PIECES_ENV, engine.Balance.seed_pieces)
    if pieces > engine.MAX_SEED_PIECES:
        raise ValueError(f"{SEED_PIECES_ENV}: expected at most {engine.MAX_SEED_PIECES}, got {pieces}")
    switches["piece_min_degree"] = _count(env, PIECE_MIN_DEGREE_ENV, engine.Balance.piece_min_degree)
    warps = switches["warps_per_sm"] = _count(env, WARPS_PER_SM_ENV, engine.Balance.warps_per_sm)
    if warps not in engine.WARPS_PER_SM:
        raise ValueError(f"{WARPS_PER_SM_ENV}: expected one of {tuple(engine.WARPS_PER_SM)}, got {warps}")
    if split == "auto":
        return engine.Balance(**switches)
    try:
        chunk = int(split)
    except ValueError:
        raise ValueError(f"{SPLIT_ENV}: expected auto or a non-negative integer, got {split!r}") from None
    if chunk < 0:
        raise ValueError(f"{SPLIT_ENV}: expected auto or a non-negative integer, got {split!r}")
    if chunk == 0:
        return engine.Balance(split=False, **switches)
    return engine.Balance(chunk=chunk, **switches)


def static_methods_from_env(env: dict | None = None) -> engine.StaticMethods:
    """The StaticMethods that DELTAMATCH_GPU_ORIENT, DELTAMATCH_GPU_CLIQUE_KERNELS,
    DELTAMATCH_GPU_FORMULAS and DELTAMATCH_GPU_HOUSE_FORMULA (defaults: on) select."""
    env = os.environ if env is None else env
    return engine.StaticMethods(orient=_switch(env, ORIENT_ENV), formulas=_switch(env, FORMULAS_ENV),
                                clique_kernels=_switch(env, CLIQUE_KERNELS_ENV),
                                house_formula=_switch(env, HOUSE_FORMULA_ENV))


def hub_bits_from_env(env: dict | None = None) -> bool:
    """Whether DELTAMATCH_GPU_HUB_BITS turns the hub bitmaps on (default: on)."""
    return _switch(os.environ if env is None else env, HUB_BITS_ENV)


def kept_triangles_from_env(env: dict | None = None) -> bool:
    """Whether DELTAMATCH_GPU_KEPT_TRIANGLES lets the device graph keep its edges' triangles for the
    edge-induced diamond's batch counts and the last levels read from them (the diamond's and the
    house's; default: on)."""
    return _switch(os.environ if env is None else env, KEPT_TRIANGLES_ENV)


def joint_sides_from_env(env: dict | None = None) -> bool:
    """Whether DELTAMATCH_GPU_JOINT_SIDES lets a replica count a batch's removal and insertion
    tasks in one run on G_old ∪ I (`GraphReplica.joint_sides`; default: on)."""
    return _switch(os.environ if env is None else env, JOINT_SIDES_ENV)


def cuda_available() -> bool:
    """True when CuPy imports and sees at least one CUDA device."""
    try:
        cp = engine.cupy()
        return cp.cuda.runtime.getDeviceCount() > 0
    except Exception:  # any failure to reach a device means "no"
        return False


class UpdatePlan(NamedTuple):
    """A batch's update of the device rows, planned on the host (`plan_update`): host arrays, or
    device views of them (the first nine fields, uploaded in one copy)."""

    rows: np.ndarray  # int32: the touched rows, ascending
    upd_ptr: np.ndarray  # int64: row r's updates are upd_nbr[upd_ptr[r] : upd_ptr[r + 1]]
    upd_nbr: np.ndarray  # int32: their neighbours, ascending per row
    ins_prefix: np.ndarray  # int32: insertions before each update, row-major
    item_ptr: np.ndarray  # int64: merge_rows' items (old entries and updates) per row, as a scan
    stage_ptr: np.ndarray  # int64: each row's place in the staging area (its new degrees, as a scan)
    new_degree: np.ndarray  # int32
    new_offsets: np.ndarray  # int64
    new_capacity: np.ndarray  # int32
    pool_used: int  # after the batch: the pool must be grown to it first
    moved: int  # rows that outgrew their block
    grown: int  # change of the live capacity


def plan_update(deleted: np.ndarray, inserted: np.ndarray, degree: np.ndarray, offsets: np.ndarray,
                capacity: np.ndarray, pool_used: int) -> UpdatePlan:
    """The device update's plan for internal-id pairs normalized against a graph of this host
    row metadata: its updates grouped by row (`graph.grouped_updates`, as the host graph does)
    and where each touched row goes (`row_layout.relocate_rows`), in one numba call.  As numpy
    calls, `grouped_updates`, the scans and `relocate` took about 0.45 ms of a 1,000-edge RMAT-20
    batch's 1.24 ms update under cProfile (session 14, call 5; 0.87 ms in all in call 6)."""
    planned = _plan_update(deleted, inserted, degree, offsets, capacity, pool_used, LAYOUT.block,
                           LAYOUT.min_capacity)
    return UpdatePlan(*planned[:9], *(int(x) for x in planned[9:]))


@njit(cache=True)
def _plan_update(deleted, inserted, degree, offsets, capacity, pool_used, block, min_capacity):
    rows, upd_ptr, upd_nbr, upd_inserted, new_degree, _ = grouped_updates(deleted, inserted, degree)
    n_rows, n_upd = rows.shape[0], upd_nbr.shape[0]
    ins_prefix = np.zeros(n_upd + 1, dtype=np.int32)
    for t in range(n_upd):
        ins_prefix[t + 1] = ins_prefix[t] + upd_inserted[t]
    item_ptr = np.zeros(n_rows + 1, dtype=np.int64)
    stage_ptr = np.zeros(n_rows + 1, dtype=np.int64)
    for r in range(n_rows):
        item_ptr[r + 1] = item_ptr[r] + degree[rows[r]] + upd_ptr[r + 1] - upd_ptr[r]
        stage_ptr[r + 1] = stage_ptr[r] + new_degree[r]
    new_offsets, new_capacity, used, moved, grown = row_layout.relocate_rows(
        offsets[rows], capacity[rows], new_degree, pool_used, block, min_capacity)
    return (rows.astype(np.int32), upd_ptr, upd_nbr, ins_prefix, item_ptr, stage_ptr,
            new_degree.astype(np.int32), new_offsets, new_capacity, used, moved, grown)


class GpuGraph:
    """Sorted adjacency rows with slack on the device, over internal ids (module docstring).

    `hub_bits` (default: DELTAMATCH_GPU_HUB_BITS): views carry bitmaps of the highest-degree rows
    (`cuda_engine.with_hub_bitmaps`), built on the first view after a build, after the rows grew in
    number or once the edges have grown HUB_REBUILD_GROWTH-fold since the last build (a graph
    loaded by batches gets its hubs as they appear), and kept exact by every batch in between
    (graph.cu's `hub_bits_apply`): the rows that have one are the highest at the last build."""

    def __init__(self, hub_bits: bool | None = None) -> None:
        cp = engine.cupy()
        self._cp = cp
        self.hub_bits = hub_bits_from_env() if hub_bits is None else hub_bits
        self._hub_view: engine.DeviceGraph | None = None  # the bitmaps, exact for the current rows
        self._hub_edges = 0  # num_edges when they were built
        self.n = 0
        self.offsets = cp.zeros(0, dtype=cp.int64)
        self.degree = cp.zeros(0, dtype=cp.int32)
        self.capacity = cp.zeros(0, dtype=cp.int32)
        # The host's copy of the three (equal after every call): a batch is planned from them
        # without reading the device.
        self.host_offsets = np.zeros(0, dtype=np.int64)
        self.host_degree = np.zeros(0, dtype=np.int32)
        self.host_capacity = np.zeros(0, dtype=np.int32)
        self.pool = cp.zeros(LAYOUT.min_pool, dtype=cp.int32)
        self.pool_used = 0
        self.degree_bound = 0  # at least every degree: exact after build and compact, raised by apply
        self.live_capacity = 0  # Σ capacity, kept incrementally (the compaction test)
        self.num_edges = 0
        self.relocations = 0
        self.compactions = 0
        self.pool_growths = 0
        self.last_update_bytes = 0  # row bytes the last apply read and wrote (merge + copy)
        self.triangles: TriangleTable | None = None
        self.last_diamonds = (0, 0)  # (destroyed, created) by the last apply, when triangles are kept
        self.triangle_seconds = 0.0  # the part of the last apply that kept them

    def keep_triangles(self, keep: bool) -> None:
        """Keep (or drop) a `TriangleTable` of the rows: every apply then also counts the
        edge-induced diamonds it destroyed and created, `last_diamonds`."""
        if keep and self.triangles is None:
            self.triangles = TriangleTable(self)
        elif not keep:
            self.triangles = None

    def view_rows(self) -> engine.DeviceGraph:
        """The rows alone, without hub bitmaps."""
        return engine.DeviceGraph(self.offsets, self.degree, self.pool, host_degree=self.host_degree,
                                  max_degree=self.degree_bound)

    def view(self) -> engine.DeviceGraph:
        """The rows with their hub bitmaps (`hub_bits`) and kept triangles (`keep_triangles`)."""
        view = self.view_rows()
        if self.triangles is not None:
            t = self.triangles
            view = view._replace(tt_keys=t.keys, tt_t=t.t, tt_bits=t.bits)
        if not self.hub_bits:
            return view
        if self._hub_view is None or self.num_edges > HUB_REBUILD_GROWTH * self._hub_edges:
            self._hub_view = None  # the old bitmaps' memory goes back first
            self._hub_view = engine.with_hub_bitmaps(view)
            self._hub_edges = self.num_edges
        return view._replace(hub_row=self._hub_view.hub_row, hub_bits=self._hub_view.hub_bits)

    @property
    def hub_rows(self):
        """The hub bitmaps' row pointers (`with_hub_bitmaps`' hub_row) as the last `view` built them
        and every apply since kept them current, None while there are none."""
        return None if self._hub_view is None else self._hub_view.hub_row

    def ensure_vertices(self, n: int) -> None:
        """Room for internal ids below n (new vertices: empty rows)."""
        cp = self._cp
        if n > self.offsets.shape[0]:
            self._hub_view = None  # a bitmap has a bit per row
            size = row_layout.grown_vertex_rows(n, self.offsets.shape[0])
            for name, dtype in (("offsets", np.int64), ("degree", np.int32), ("capacity", np.int32)):
                for xp, attr in ((cp, name), (np, "host_" + name)):
                    grown = xp.zeros(size, dtype=dtype)
                    grown[: self.n] = getattr(self, attr)[: self.n]
                    setattr(self, attr, grown)
        self.n = max(self.n, n)

    def _pull_rows(self) -> None:
        """The host copy of offsets, degree and capacity (and the exact degree bound) after the
        device rewrote them all."""
        self.host_offsets, self.host_degree, self.host_capacity = (
            a.get() for a in (self.offsets, self.degree, self.capacity))
        self.degree_bound = int(self.host_degree.max(initial=0))

    @property
    def num_vertices(self) -> int:
        """Vertices that currently have an edge."""
        return int(self._cp.count_nonzero(self.degree[: self.n]))

    @property
    def max_degree(self) -> int:
        return int(self.degree[: self.n].max()) if self.n else 0

    def build(self, edges: np.ndarray, num_vertices: int) -> None:
        """Replace the graph by `edges` (internal-id pairs, each edge once): a full rebuild,
        rows packed as by `compact`."""
        cp = self._cp
        self._hub_view = None
        e = cp.asarray(edges, dtype=cp.int64).reshape(-1, 2)
        n = max(num_vertices, int(e.max()) + 1 if e.shape[0] else 0)
        key = cp.concatenate([(e[:, 0] << 32) | e[:, 1], (e[:, 1] << 32) | e[:, 0]])
        key.sort()
        src = (key >> 32).astype(cp.int32)
        dst = (key & 0xFFFFFFFF).astype(cp.int32)
        degree = (cp.bincount(src, minlength=n).astype(cp.int32) if src.shape[0]
                  else cp.zeros(n, dtype=cp.int32))
        offsets, cap, live, used, size = row_layout.packed(degree, LAYOUT, cp)
        self.pool = cp.zeros(size, dtype=cp.int32)
        row_start = cp.cumsum(degree, dtype=cp.int64) - degree
        within = cp.arange(src.shape[0], dtype=cp.int64) - row_start[src]
        self.pool[offsets[src] + within] = dst
        self.n = 0
        self.offsets = cp.zeros(0, dtype=cp.int64)
        self.degree = cp.zeros(0, dtype=cp.int32)
        self.capacity = cp.zeros(0, dtype=cp.int32)
        self.ensure_vertices(n)
        self.offsets[:n] = offsets
        self.degree[:n] = degree
        self.capacity[:n] = cap
        self._pull_rows()
        self.pool_used = used
        self.live_capacity = live
        self.num_edges = int(e.shape[0])
        if self.triangles is not None:
            self.triangles.rebuild(self)

    def apply(self, deleted: np.ndarray, inserted: np.ndarray) -> None:
        """G = (G - D) ∪ I for internal-id pairs normalized against this graph.

        The batch is planned on the host, from the host copy of the row metadata (`plan_update`).
        The plan goes to the device in one copy; three kernels merge the rows into a staging
        area, move them into place and record their new metadata (a fourth keeps the hub
        bitmaps).  Planned on the device, a 1,000-edge RMAT-20 batch took 100 launches and 5.4
        ms of wall time for 0.5 ms of device work (session 6); planned here, 0.87 ms of plain
        wall for 0.1 ms of kernels (timeline.py --host-profile, session 14's call 6).  Kept
        triangles: both sides' pairs go up in the plan's copy, the deletion side is queued before
        the rows change and the insertion side after, and one read settles both."""
        cp = self._cp
        deleted = np.asarray(deleted, dtype=np.int64).reshape(-1, 2)
        inserted = np.asarray(inserted, dtype=np.int64).reshape(-1, 2)
        self.last_diamonds = (0, 0)
        self.triangle_seconds = 0.0
        if deleted.shape[0] + inserted.shape[0] == 0:
            return
        self.ensure_vertices(max(int(deleted.max(initial=-1)), int(inserted.max(initial=-1))) + 1)
        if self.num_edges == 0 and deleted.shape[0] == 0:
            self.build(inserted, self.n)  # a bulk load into an empty graph: one CSR build
            if self.triangles is not None:
                self.last_diamonds = (0, self.triangles.diamonds)
            return
        table = self.triangles
        start = time.perf_counter()
        removed = plan_side(deleted, self.host_degree) if table is not None else None
        self.triangle_seconds = time.perf_counter() - start
        plan = plan_update(deleted, inserted, self.host_degree, self.host_offsets, self.host_capacity,
                           self.pool_used)
        self.host_offsets[plan.rows] = plan.new_offsets
        self.host_degree[plan.rows] = plan.new_degree
        self.host_capacity[plan.rows] = plan.new_capacity
        start = time.perf_counter()
        added = plan_side(inserted, self.host_degree) if table is not None else None
        self.triangle_seconds += time.perf_counter() - start
        sides = () if table is None else removed.arrays + added.arrays
        held, addresses = engine.upload_addresses(*plan[:9], *sides)  # held until the kernels are queued
        d = plan._replace(**dict(zip(UpdatePlan._fields[:9], addresses[:9], strict=True)))
        if table is not None:
            start = time.perf_counter()
            table.start()
            table.queue_deletions(self, removed.uploaded(addresses[9:12]))
            self.triangle_seconds += time.perf_counter() - start
        n_rows = np.int32(plan.rows.shape[0])
        n_items, n_staged = int(plan.item_ptr[-1]), int(plan.stage_ptr[-1])
        self.last_update_bytes = 4 * (n_items + 3 * n_staged)
        stage = cp.empty(max(n_staged, 1), dtype=cp.int32)
        threads = 256
        if n_items:
            engine.kernel("graph.cu", "merge_rows")(
                (engine.grid_blocks(n_items, threads),), (threads,),
                (self.offsets, self.degree, self.pool, d.rows, n_rows, d.item_ptr, d.upd_ptr, d.upd_nbr,
                 d.ins_prefix, d.stage_ptr, stage))
        if plan.pool_used > self.pool.shape[0]:
            self._grow_pool(plan.pool_used)
        self.pool_used = plan.pool_used
        self.relocations += plan.moved
        self.live_capacity += plan.grown
        if n_staged:
            engine.kernel("graph.cu", "copy_rows")(
                (engine.grid_blocks(n_staged, threads),), (threads,),
                (n_rows, d.stage_ptr, d.stage_ptr, stage, d.new_offsets, self.pool))
        engine.kernel("graph.cu", "set_rows")(
            (engine.grid_blocks(int(n_rows), threads),), (threads,),
            (n_rows, d.rows, d.new_offsets, d.new_degree, d.new_capacity, self.offsets, self.degree,
             self.capacity))
        if self._hub_view is not None and self._hub_view.hub_row is not None:  # (None: no row had one)
            engine.kernel("graph.cu", "hub_bits_apply")(
                (engine.grid_blocks(int(n_rows), threads),), (threads,),
                (n_rows, d.rows, d.upd_ptr, d.upd_nbr, d.ins_prefix, self._hub_view.hub_row))
        self.degree_bound = max(self.degree_bound, int(plan.new_degree.max(initial=0)))
        self.num_edges += int(inserted.shape[0]) - int(deleted.shape[0])
        if table is not None:
            start = time.perf_counter()
            table.queue_insertions(self, added.uploaded(addresses[12:15]))
            self.last_diamonds = table.settle()
            self.triangle_seconds += time.perf_counter() - start
        if row_layout.needs_compaction(self.pool_used, self.live_capacity):
            self.compact()

    def _grow_pool(self, wanted: int) -> None:
        cp = self._cp
        grown = cp.zeros(row_layout.grown_pool_size(wanted, self.pool.shape[0]), dtype=cp.int32)
        grown[: self.pool_used] = self.pool[: self.pool_used]
        self.pool = grown
        self.pool_growths += 1

    def compact(self) -> None:
        """Rewrite all rows contiguously with fresh slack (`row_layout.packed`)."""
        cp = self._cp
        n = self.n
        deg = self.degree[:n]
        new_off, cap, live, used, size = row_layout.packed(deg, LAYOUT, cp)
        pool = cp.zeros(size, dtype=cp.int32)
        row_ptr = cp.zeros(n + 1, dtype=cp.int64)
        cp.cumsum(deg, out=row_ptr[1:])
        entries = int(self.host_degree[:n].sum())
        if entries:
            threads = 256
            engine.kernel("graph.cu", "copy_rows")(
                (engine.grid_blocks(entries, threads),), (threads,),
                (np.int32(n), row_ptr, self.offsets, self.pool, new_off, pool))
        self.pool = pool
        self.offsets[:n] = new_off
        self.capacity[:n] = cap
        self._pull_rows()
        self.pool_used = used
        self.live_capacity = live
        self.compactions += 1

    def has_edges(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Edge test for internal id pairs (u[i], v[i]) below `n`, on the device; a host bool array."""
        cp = self._cp
        n = int(u.shape[0])
        if n == 0:
            return np.zeros(0, dtype=np.bool_)
        out = cp.empty(n, dtype=cp.bool_)
        threads = 256
        engine.kernel("graph.cu", "has_edges")(
            (engine.grid_blocks(n, threads),), (threads,),
            (self.offsets, self.degree, self.pool, cp.asarray(np.ascontiguousarray(u, dtype=np.int32)),
             cp.asarray(np.ascontiguousarray(v, dtype=np.int32)), np.int64(n), out))
        return out.get()

    def rows_host(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(offsets, degree, pool) copied to the host, for checks."""
        return self.offsets[: self.n].get(), self.degree[: self.n].get(), self.pool.get()

    def edges(self) -> np.ndarray:
        """Every edge once as internal-id pairs (u < v), sorted; computed on the device."""
        cp = self._cp
        deg = self.degree[: self.n].astype(cp.int64)
        row_end = cp.cumsum(deg)
        total = int(row_end[-1]) if self.n else 0
        item = cp.arange(total, dtype=cp.int64)
        src = cp.searchsorted(row_end, item, side="right")
        dst = self.pool[self.offsets[src] + item - (row_end - deg)[src]].astype(cp.int64)
        keep = src < dst
        return cp.stack([src[keep], dst[keep]], axis=1).get()


class CudaGraph:
    """A CUDA worker's graph: `DynamicGraph`'s interface (names, normalization, batches,
    edges, stats) with the rows in a `GpuGraph` only.  The host keeps the vertex names, which
    listings and normalization need; every read of the edges goes to the device."""

    def __init__(self) -> None:
        self.vertices = VertexMap()
        self.rows = GpuGraph()

    @property
    def num_vertices(self) -> int:
        """Vertices that currently have an edge."""
        return self.rows.num_vertices

    @property
    def num_edges(self) -> int:
        return self.rows.num_edges

    @property
    def max_degree(self) -> int:
        return self.rows.max_degree

    def has_edges(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Edge test for internal id pairs (u[i], v[i]), on the device."""
        return self.rows.has_edges(u, v)

    def normalize(self, insert, delete) -> NormalizedBatch:
        """`normalize_batch` against this graph (edge tests on the device)."""
        return normalize_batch(self.vertices, self.rows.has_edges, insert, delete)

    def add_vertices(self, external: np.ndarray) -> None:
        """Intern unknown external ids as the next internal ids, in order (no edges yet)."""
        self.vertices.append(np.asarray(external, dtype=np.int64))
        self.rows.ensure_vertices(len(self.vertices))

    def apply(self, batch: NormalizedBatch) -> None:
        """G = (G - D) ∪ I for a batch normalized against this graph (or an equal one)."""
        admit_vertices(self, batch)
        self.rows.apply(batch.deleted, batch.inserted)

    def edges(self) -> np.ndarray:
        """Every edge once as external-id pairs (u < v), sorted (read from the device)."""
        internal = self.rows.edges()
        return unique_pairs(self.vertices.external[internal].reshape(-1, 2))

    def internal_edges(self) -> np.ndarray:
        """Every edge once as internal-id pairs (u < v internally), int32 (read from the device)."""
        return self.rows.edges().astype(np.int32).reshape(-1, 2)


class CudaBatch:
    """A batch's changed pairs looked up per vertex, on the device (BatchView's layout)."""

    def __init__(self, view: engine.DeviceBatch, touched) -> None:
        self.view = view
        self.touched = touched

    def joint(self, removals: int) -> CudaBatch:
        """The same lookup for a joint count (`DeviceBatch.joint`); release the original."""
        return CudaBatch(self.view.joint(removals), self.touched)


class CudaBackend:
    """The device graph + CUDA engine: CpuBackend's methods, run on the GPU."""

    name = "cuda"

    def __init__(self, balance: engine.Balance | None = None,
                 static_methods: engine.StaticMethods | None = None,
                 keeps_triangles: bool | None = None, joint_sides: bool | None = None) -> None:
        cp = engine.cupy()
        self._cp = cp
        self.keeps_triangles = kept_triangles_from_env() if keeps_triangles is None else keeps_triangles
        self.joint_sides = joint_sides_from_env() if joint_sides is None else joint_sides
        self.balance = balance if balance is not None else balance_from_env()
        self.static_methods = static_methods if static_methods is not None else static_methods_from_env()
        engine.warm_up(self.balance.builds())
        self.graph = CudaGraph()
        self._slot = cp.full(1024, -1, dtype=cp.int32)
        self._host: DynamicGraph | None = None

    @property
    def device(self) -> GpuGraph:
        """The device rows."""
        return self.graph.rows

    def host_graph(self) -> DynamicGraph:
        """A host copy for the groups the scheduler routes to the CPU engine: copied from the
        device rows the first time it is asked for, then kept current by `apply`, so a worker
        whose groups all run on the device never holds one."""
        if self._host is None:
            host = DynamicGraph()
            host.add_vertices(self.graph.vertices.external)
            host.apply(NormalizedBatch(np.zeros((0, 2), dtype=np.int32), self.graph.internal_edges(), 0,
                                       len(host.vertices)))
            self._host = host
        return self._host

    def pair_features(self, batch: NormalizedBatch, vertices_old: int, common: bool = True,
                      sample: int = COMMON_SAMPLE, square_sum_old: int | None = None) -> PairFeatures:
        """`features.pair_features` of `batch` (not yet applied), computed on the device rows."""
        return device_pair_features(self.device, batch, vertices_old, common, sample, square_sum_old)

    def device_info(self) -> dict:
        cp = self._cp
        dev = cp.cuda.Device()
        props = cp.cuda.runtime.getDeviceProperties(dev.id)
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        return {"backend": self.name, "device": f"cuda:{dev.id}", "gpu_name": name,
                "memory_bytes": int(dev.mem_info[1]), "share_scheme": self.share_scheme}

    @property
    def share_scheme(self) -> str:
        """`CpuBackend.share_scheme`: shares follow the degree relabelling and the static methods."""
        return f"cuda {self.static_methods}"

    def keep_triangles(self, keep: bool) -> None:
        """Have the device graph keep (or drop) its edges' triangles (`GpuGraph.keep_triangles`);
        only when `keeps_triangles`."""
        self.device.keep_triangles(keep and self.keeps_triangles)

    def kept_diamonds(self) -> tuple[int, int]:
        """The edge-induced diamonds the last `apply` destroyed and created, from the kept triangles."""
        return self.device.last_diamonds

    def apply(self, batch: NormalizedBatch) -> None:
        self.graph.apply(batch)
        if self._host is not None:
            self._host.apply(batch)

    def batch_view(self, pairs: np.ndarray) -> CudaBatch:
        """Device lookup of `pairs` (pair i has rank i); `release` it when done."""
        cp = self._cp
        pairs = np.asarray(pairs, dtype=np.int32).reshape(-1, 2)
        n = max(len(self.graph.vertices), int(pairs.max(initial=-1)) + 1)  # a batch's new vertices too
        self.device.ensure_vertices(n)
        if self._slot.shape[0] < n:
            self._slot = cp.full(max(n, 2 * self._slot.shape[0]), -1, dtype=cp.int32)
        ranks = np.arange(pairs.shape[0], dtype=np.int32)
        src = np.concatenate([pairs[:, 0], pairs[:, 1]])
        dst = np.concatenate([pairs[:, 1], pairs[:, 0]])
        rank = np.concatenate([ranks, ranks])
        order, touched, starts = by_source(src, dst)
        pad = np.zeros(1, np.int32)
        dst, rank = (a[order] if a.size else pad for a in (dst, rank))
        table = engine.pair_table_arrays(pairs[:, 0], pairs[:, 1], ranks)
        ptr = np.append(starts, src.shape[0]).astype(np.int64)
        d_touched, d_ptr, d_dst, d_rank, d_filter, *d_table = engine.upload(
            touched.astype(np.int32), ptr, dst, rank, changed_pair_filter(pairs[:, 0], pairs[:, 1]), *table)
        self._slot[d_touched] = cp.arange(touched.shape[0], dtype=cp.int32)
        view = engine.DeviceBatch.of(self._slot, d_ptr, d_dst, d_rank, d_filter, tuple(d_table))
        return CudaBatch(view, d_touched)

    def release(self, view: CudaBatch) -> None:
        self._slot[view.touched] = -1

    def _batch(self, batch: CudaBatch | BatchView) -> engine.DeviceBatch:
        return batch.view if isinstance(batch, CudaBatch) else engine.device_batch(batch)

    def count(self, plans: PlanTable, tasks: TaskList, batch: CudaBatch | BatchView,
              check_other: bool, then: Callable[[], None] | None = None) -> np.ndarray:
        """`CpuBackend.count`; `then` runs before the host waits for the count's kernels where it can
        (`cuda_engine.count_tasks`)."""
        if tasks.size == 0:
            if then is not None:
                then()
            return np.zeros(0, dtype=np.int64)
        return engine.count_tasks(self.device.view(), plans, tasks, self._batch(batch), check_other,
                                  balance=self.balance, then=then)

    def static_count(self, plans: PlanTable, part: int, parts: int) -> int:
        """Share part::parts of a whole-graph count (a static plan), counted on a degree relabelling
        of the device graph (`cuda_engine.static_count`: cliques on the oriented graph, the diamond,
        4-cycle and house by formula, the rest with ids ascending in degree)."""
        return engine.static_count(self.device.view(), len(self.graph.vertices), plans, part, parts,
                                   methods=self.static_methods, balance=self.balance)

    def list(self, plans: PlanTable, tasks: TaskList, batch: CudaBatch | BatchView, counts: np.ndarray,
             check_other: bool, limit: int | None = None) -> np.ndarray:
        if tasks.size == 0:
            return np.zeros((0, plans.k), dtype=np.int32)
        return engine.list_tasks(self.device.view(), plans, tasks, self._batch(batch), counts, check_other,
                                 limit)
