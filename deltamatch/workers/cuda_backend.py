"""The CUDA backend: the host DynamicGraph (normalization, vertex map, snapshots) plus a
device-resident copy of it with the same row layout, and the CUDA engine.

`GpuGraph` keeps every row sorted in a block of slack on the device.  A batch is applied on
the device: touched rows are merged with their updates in parallel (graph.cu), rows that
outgrow their block move to a fresh run of fixed-size blocks handed out by a device-side
bump allocator, and the pool is compacted when more than half of it is dead.  CuPy is
imported lazily (inside the worker), never at import time.
"""

from __future__ import annotations

import os

import numpy as np

from deltamatch.kernels import cuda_engine as engine
from deltamatch.kernels.plan_table import BatchView, PlanTable, TaskList, empty_batch
from deltamatch.workers.graph import DynamicGraph, NormalizedBatch

BLOCK_SLOTS = 32  # allocator block: 32 int32 slots = 128 bytes, one memory transaction
SPLIT_ENV = "DELTAMATCH_GPU_SPLIT"  # "auto" (default), "0" (off) or a fixed chunk of level-2 candidates
UNROLL_ENV = "DELTAMATCH_GPU_UNROLL"  # "1" (default) or "0"
STEAL_ENV = "DELTAMATCH_GPU_STEAL"  # "1" (default) or "0"


def _switch(env: dict, name: str) -> bool:
    value = env.get(name, "1").strip()
    if value not in ("0", "1"):
        raise ValueError(f"{name}: expected 0 or 1, got {value!r}")
    return value == "1"


def balance_from_env(env: dict | None = None) -> engine.Balance:
    """The Balance that DELTAMATCH_GPU_SPLIT, DELTAMATCH_GPU_UNROLL and DELTAMATCH_GPU_STEAL select
    (defaults: all on)."""
    env = os.environ if env is None else env
    split = env.get(SPLIT_ENV, "auto").strip().lower() or "auto"
    switches = {"unroll": _switch(env, UNROLL_ENV), "steal": _switch(env, STEAL_ENV)}
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


def cuda_available() -> bool:
    """True when CuPy imports and sees at least one CUDA device."""
    try:
        cp = engine.cupy()
        return cp.cuda.runtime.getDeviceCount() > 0
    except Exception:  # any failure to reach a device means "no"
        return False


class GpuGraph:
    """Sorted adjacency rows with slack on the device (see module docstring)."""

    def __init__(self) -> None:
        cp = engine.cupy()
        self._cp = cp
        self.n = 0
        self.offsets = cp.zeros(0, dtype=cp.int64)
        self.degree = cp.zeros(0, dtype=cp.int32)
        self.capacity = cp.zeros(0, dtype=cp.int32)
        self.pool = cp.zeros(1 << 16, dtype=cp.int32)
        self.pool_used = 0
        self.live_capacity = 0
        self.num_edges = 0
        self.relocations = 0
        self.compactions = 0
        self.pool_growths = 0
        self.last_update_bytes = 0  # row bytes the last apply read and wrote (merge + copy)

    def view(self) -> engine.DeviceGraph:
        return engine.DeviceGraph(self.offsets, self.degree, self.pool)

    def ensure_vertices(self, n: int) -> None:
        """Room for internal ids below n (new vertices: empty rows)."""
        cp = self._cp
        if n > self.offsets.shape[0]:
            size = max(n, 2 * self.offsets.shape[0], 1024)
            for name, dtype in (("offsets", cp.int64), ("degree", cp.int32), ("capacity", cp.int32)):
                grown = cp.zeros(size, dtype=dtype)
                grown[: self.n] = getattr(self, name)[: self.n]
                setattr(self, name, grown)
        self.n = max(self.n, n)

    def build(self, edges: np.ndarray, num_vertices: int) -> None:
        """Replace the graph by `edges` (internal-id pairs, each edge once): a full rebuild."""
        cp = self._cp
        e = cp.asarray(edges, dtype=cp.int64).reshape(-1, 2)
        n = max(num_vertices, int(e.max()) + 1 if e.shape[0] else 0)
        key = cp.concatenate([(e[:, 0] << 32) | e[:, 1], (e[:, 1] << 32) | e[:, 0]])
        key.sort()
        src = (key >> 32).astype(cp.int32)
        dst = (key & 0xFFFFFFFF).astype(cp.int32)
        degree = (cp.bincount(src, minlength=n).astype(cp.int32) if src.shape[0]
                  else cp.zeros(n, dtype=cp.int32))
        cap = degree + degree // 4 + 2
        offsets = cp.cumsum(cap, dtype=cp.int64) - cap
        total = int(offsets[-1] + cap[-1]) if n else 0
        used = -(-total // BLOCK_SLOTS) * BLOCK_SLOTS
        self.pool = cp.zeros(max(used + used // 4, 1 << 16), dtype=cp.int32)
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
        self.pool_used = used
        self.live_capacity = total
        self.num_edges = int(e.shape[0])

    def apply(self, deleted: np.ndarray, inserted: np.ndarray) -> None:
        """G = (G - D) ∪ I for internal-id pairs normalized against this graph."""
        cp = self._cp
        d = cp.asarray(deleted, dtype=cp.int64).reshape(-1, 2)
        i = cp.asarray(inserted, dtype=cp.int64).reshape(-1, 2)
        if d.shape[0] + i.shape[0] == 0:
            return
        top = max(int(np.max(deleted, initial=-1)), int(np.max(inserted, initial=-1)))
        self.ensure_vertices(top + 1)
        if self.num_edges == 0 and d.shape[0] == 0:
            self.build(inserted, self.n)  # a bulk load into an empty graph: one CSR build
            return
        src = cp.concatenate([d[:, 0], d[:, 1], i[:, 0], i[:, 1]])
        dst = cp.concatenate([d[:, 1], d[:, 0], i[:, 1], i[:, 0]])
        flag = cp.concatenate([cp.zeros(2 * d.shape[0], cp.int64), cp.ones(2 * i.shape[0], cp.int64)])
        key = (src << 32) | (dst << 1) | flag
        key.sort()
        src = (key >> 32).astype(cp.int32)
        nbr = ((key >> 1) & 0x7FFFFFFF).astype(cp.int32)
        is_ins = (key & 1).astype(cp.int32)
        n_upd = int(key.shape[0])
        head = cp.ones(n_upd, dtype=cp.bool_)
        head[1:] = src[1:] != src[:-1]
        starts = cp.flatnonzero(head)
        rows = src[starts]
        n_rows = int(rows.shape[0])
        upd_ptr = cp.concatenate([starts, cp.asarray([n_upd])]).astype(cp.int64)
        ins_prefix = cp.zeros(n_upd + 1, dtype=cp.int32)
        cp.cumsum(is_ins, out=ins_prefix[1:])
        per_row = cp.diff(upd_ptr).astype(cp.int32)
        ins_row = (ins_prefix[upd_ptr[1:]] - ins_prefix[upd_ptr[:-1]]).astype(cp.int32)
        old_deg = self.degree[rows]
        new_deg = old_deg + 2 * ins_row - per_row
        item_ptr = cp.zeros(n_rows + 1, dtype=cp.int64)
        cp.cumsum(old_deg + per_row, out=item_ptr[1:])
        stage_ptr = cp.zeros(n_rows + 1, dtype=cp.int64)
        cp.cumsum(new_deg, out=stage_ptr[1:])
        sizes = cp.stack([item_ptr[-1], stage_ptr[-1]]).get()
        self.last_update_bytes = 4 * (int(sizes[0]) + 3 * int(sizes[1]))
        stage = cp.empty(max(int(sizes[1]), 1), dtype=cp.int32)
        if sizes[0]:
            threads = 256
            blocks = int(min(-(-int(sizes[0]) // threads), 132 * 32))
            engine.kernel("graph.cu", "merge_rows")(
                (blocks,), (threads,),
                (self.offsets, self.degree, self.pool, rows, np.int32(n_rows), item_ptr, upd_ptr, nbr,
                 ins_prefix, stage_ptr, stage))
        new_off, new_cap = self._allocate(rows, new_deg)
        warps_per_block = 8
        engine.kernel("graph.cu", "copy_rows")(
            (max(1, min(-(-n_rows // warps_per_block), 132 * 32)),), (warps_per_block * 32,),
            (np.int32(n_rows), stage_ptr, new_deg, stage, new_off, self.pool))
        self.live_capacity += int((new_cap.astype(cp.int64) - self.capacity[rows]).sum())
        self.offsets[rows] = new_off
        self.degree[rows] = new_deg
        self.capacity[rows] = new_cap
        self.num_edges += int(inserted.shape[0]) - int(deleted.shape[0])
        if self.pool_used > 2 * self.live_capacity + 4096:
            self.compact()

    def _allocate(self, rows, new_deg):
        """New offset and capacity per touched row; moving rows get blocks from the allocator."""
        cp = self._cp
        n_rows = int(rows.shape[0])
        new_off = cp.empty(n_rows, dtype=cp.int64)
        new_cap = cp.empty(n_rows, dtype=cp.int32)
        used = cp.zeros(1, dtype=cp.uint64)
        overflow = cp.zeros(1, dtype=cp.int32)
        while True:
            used[0] = self.pool_used
            overflow[0] = 0
            engine.kernel("graph.cu", "alloc_rows")(
                (max(1, -(-n_rows // 256)),), (256,),
                (rows, np.int32(n_rows), new_deg, self.capacity, self.offsets, new_off, new_cap, used,
                 np.int64(self.pool.shape[0]), np.int32(BLOCK_SLOTS), overflow))
            state = cp.concatenate([used.view(cp.int64), overflow.astype(cp.int64)]).get()
            if not state[1]:
                break
            self._grow_pool(int(state[0]))
        moved = int((new_cap != self.capacity[rows]).sum())
        self.relocations += moved
        self.pool_used = int(state[0])
        return new_off, new_cap

    def _grow_pool(self, wanted: int) -> None:
        cp = self._cp
        grown = cp.zeros(max(wanted + wanted // 4, 2 * self.pool.shape[0]), dtype=cp.int32)
        grown[: self.pool_used] = self.pool[: self.pool_used]
        self.pool = grown
        self.pool_growths += 1

    def compact(self) -> None:
        """Rewrite all rows contiguously with fresh slack (a quarter of the degree)."""
        cp = self._cp
        n = self.n
        deg = self.degree[:n]
        cap = deg + deg // 4 + 2
        new_off = cp.cumsum(cap, dtype=cp.int64) - cap
        total = int(new_off[-1] + cap[-1]) if n else 0
        used = -(-total // BLOCK_SLOTS) * BLOCK_SLOTS
        pool = cp.zeros(max(used + used // 4, 1 << 16), dtype=cp.int32)
        engine.kernel("graph.cu", "copy_rows")(
            (max(1, min(-(-n // 8), 132 * 32)),), (256,),
            (np.int32(n), self.offsets, deg, self.pool, new_off, pool))
        self.pool = pool
        self.offsets[:n] = new_off
        self.capacity[:n] = cap
        self.pool_used = used
        self.live_capacity = total
        self.compactions += 1

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


class CudaBatch:
    """A batch's changed pairs looked up per vertex, on the device (BatchView's layout)."""

    def __init__(self, view: engine.DeviceBatch, touched) -> None:
        self.view = view
        self.touched = touched


class CudaBackend:
    """Host graph + device graph + CUDA engine: CpuBackend's methods, run on the GPU."""

    name = "cuda"

    def __init__(self, balance: engine.Balance | None = None) -> None:
        cp = engine.cupy()
        self._cp = cp
        self.balance = balance if balance is not None else balance_from_env()
        engine.warm_up()
        self.device = GpuGraph()
        self._slot = cp.full(1024, -1, dtype=cp.int32)
        self._graph = DynamicGraph()

    @property
    def graph(self) -> DynamicGraph:
        return self._graph

    @graph.setter
    def graph(self, host: DynamicGraph) -> None:
        """Adopt a host graph (restore from a snapshot): the device copy is rebuilt from it."""
        self._graph = host
        self.device.build(host.internal_edges(), len(host.vertices))

    def device_info(self) -> dict:
        cp = self._cp
        dev = cp.cuda.Device()
        props = cp.cuda.runtime.getDeviceProperties(dev.id)
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        return {"backend": self.name, "device": f"cuda:{dev.id}", "gpu_name": name,
                "memory_bytes": int(dev.mem_info[1])}

    def apply(self, batch: NormalizedBatch) -> None:
        self._graph.apply(batch)
        self.device.ensure_vertices(len(self._graph.vertices))
        self.device.apply(batch.deleted, batch.inserted)

    def batch_view(self, pairs: np.ndarray) -> CudaBatch:
        """Device lookup of `pairs` (pair i has rank i); `release` it when done."""
        cp = self._cp
        pairs = np.asarray(pairs, dtype=np.int32).reshape(-1, 2)
        n = max(len(self._graph.vertices), int(pairs.max(initial=-1)) + 1)  # a batch's new vertices too
        self.device.ensure_vertices(n)
        if self._slot.shape[0] < n:
            self._slot = cp.full(max(n, 2 * self._slot.shape[0]), -1, dtype=cp.int32)
        ranks = np.arange(pairs.shape[0], dtype=np.int32)
        src = np.concatenate([pairs[:, 0], pairs[:, 1]])
        dst = np.concatenate([pairs[:, 1], pairs[:, 0]])
        rank = np.concatenate([ranks, ranks])
        order = np.lexsort((dst, src))
        src, dst, rank = src[order], dst[order], rank[order]
        touched, starts = np.unique(src, return_index=True)
        d_touched = cp.asarray(touched.astype(np.int32))
        self._slot[d_touched] = cp.arange(touched.shape[0], dtype=cp.int32)
        ptr = np.append(starts, src.shape[0]).astype(np.int64)
        pad = np.zeros(1, np.int32)
        view = engine.DeviceBatch(self._slot, cp.asarray(ptr), cp.asarray(dst if dst.size else pad),
                                  cp.asarray(rank if rank.size else pad))
        return CudaBatch(view, d_touched)

    def release(self, view: CudaBatch) -> None:
        self._slot[view.touched] = -1

    def _batch(self, batch: CudaBatch | BatchView) -> engine.DeviceBatch:
        return batch.view if isinstance(batch, CudaBatch) else engine.device_batch(batch)

    def count(self, plans: PlanTable, tasks: TaskList, batch: CudaBatch | BatchView,
              check_other: bool) -> np.ndarray:
        if tasks.size == 0:
            return np.zeros(0, dtype=np.int64)
        return engine.count_tasks(self.device.view(), plans, tasks, self._batch(batch), check_other,
                                  balance=self.balance)

    def static_count(self, plans: PlanTable, part: int, parts: int) -> int:
        """Matches of a whole-graph count found from the edges part::parts (a static plan), counted
        on the degree-ordered relabelling of the device graph: with ids ascending in degree the
        symmetry bounds leave a hub only its higher-degree neighbours (degree orientation)."""
        n = len(self._graph.vertices)
        ordered = engine.degree_ordered(self.device.view(), n)
        tasks = engine.static_tasks(ordered, n, plans)
        share = engine.DeviceTasks(tasks.u[part::parts], tasks.v[part::parts], None, None)
        if share.size == 0:
            return 0
        return engine.count_total(ordered, plans, share, engine.device_batch(empty_batch(n)),
                                  balance=self.balance)

    def list(self, plans: PlanTable, tasks: TaskList, batch: CudaBatch | BatchView, counts: np.ndarray,
             check_other: bool) -> np.ndarray:
        if tasks.size == 0:
            return np.zeros((0, plans.k), dtype=np.int32)
        return engine.list_tasks(self.device.view(), plans, tasks, self._batch(batch), counts, check_other)
