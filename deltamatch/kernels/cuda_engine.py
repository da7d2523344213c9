"""The CUDA engine: a thin CuPy wrapper around `match.cu` (matching) and `graph.cu` (graph updates).

`count_tasks` / `list_tasks` have the CPU engine's contract and accept the same plain
arrays (host numpy, uploaded) or their device forms (`DeviceGraph`/`DevicePlans`/
`DeviceTasks`/`DeviceBatch` of CuPy arrays).  Each `.cu` file is compiled once per process
and device with NVRTC; the cache key covers the source, the options and (through a
`-D` option) the hash of every header, and `-arch` is the device's own.  CuPy is imported
on first use only, so importing this module needs no GPU.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from deltamatch.kernels.plan_table import BatchView, GraphView, PlanTable, TaskList

KERNEL_DIR = Path(__file__).resolve().parent
WARPS_PER_BLOCK = 8  # DM_WARPS_PER_BLOCK in match.cu
LIST_BUFFER_BYTES = 1 << 28
NULL = np.uint64(0)

_modules: dict[tuple[int, str], Any] = {}
used_options: dict[str, tuple[str, ...]] = {}


class EngineError(RuntimeError):
    """The device reported an inconsistency (a listing that disagrees with its counts)."""


class DeadlineExceeded(RuntimeError):
    """A run stopped at its time limit; its counts are incomplete and must not be used."""


def cupy():
    """The CuPy module (imported here, lazily)."""
    import cupy as cp

    return cp


def header_hash() -> str:
    """SHA-256 over every header next to the sources (part of the compile cache key)."""
    h = hashlib.sha256()
    for path in sorted(KERNEL_DIR.glob("*.cuh")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def compile_options(compute_capability: str) -> tuple[str, ...]:
    """NVRTC options for a device of the given compute capability (e.g. '90')."""
    return (
        "--std=c++17",
        f"-arch=sm_{compute_capability}",
        f"-I{KERNEL_DIR}",
        f"-DDM_HEADERS_SHA256_PREFIX=0x{header_hash()[:15]}",
    )


def module(name: str):
    """The compiled RawModule of kernels/<name> for the current device (compiled once)."""
    cp = cupy()
    dev = cp.cuda.Device()
    key = (dev.id, name)
    mod = _modules.get(key)
    if mod is None:
        source = (KERNEL_DIR / name).read_text()
        mod = cp.RawModule(code=source, options=compile_options(dev.compute_capability), backend="nvrtc")
        mod.compile()
        _modules[key] = mod
        used_options[name] = compile_options(dev.compute_capability)
    return mod


def kernel(module_name: str, function: str):
    return module(module_name).get_function(function)


def warm_up() -> None:
    """Compile every kernel module now (worker start) rather than on the first batch."""
    for name in ("match.cu", "graph.cu"):
        module(name)


class DeviceGraph(NamedTuple):
    """GraphView with CuPy arrays (same row layout)."""

    offsets: Any
    degree: Any
    pool: Any


class DeviceBatch(NamedTuple):
    """BatchView with CuPy arrays."""

    slot: Any
    ptr: Any
    partner: Any
    rank: Any


class DeviceTasks(NamedTuple):
    """TaskList with CuPy arrays; rank/plan may be None (static: rank -1, plan 0)."""

    u: Any
    v: Any
    rank: Any
    plan: Any

    @property
    def size(self) -> int:
        return int(self.u.shape[0])


@dataclass(frozen=True)
class DevicePlans:
    """A PlanTable lowered to per-position bitmasks on the device."""

    k: int
    induced: bool
    order: Any  # int32[plans * k]
    conn: Any  # int32[plans * 8]: bit j = positions l, j adjacent
    lt: Any  # int32[plans * 8]: bit j = value at l < value at j
    gt: Any  # int32[plans * 8]: bit j = value at l > value at j
    iso_masks: Any  # int64[labellings]


def plan_bits(plans: PlanTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(conn, lt, gt) bitmasks, int32[plans, 8], bit j of row l over positions j < l."""
    n, k = plans.order.shape
    weights = np.left_shift(1, np.arange(k, dtype=np.int64))
    lower = np.tril(np.ones((k, k), dtype=bool), -1)
    out = []
    for sel in (plans.conn == 1, plans.cmp == -1, plans.cmp == 1):
        bits = ((sel & lower) * weights).sum(axis=2)
        full = np.zeros((n, 8), dtype=np.int32)
        full[:, :k] = bits
        out.append(full)
    return out[0], out[1], out[2]


def device_plans(plans: PlanTable) -> DevicePlans:
    cp = cupy()
    conn, lt, gt = plan_bits(plans)
    iso = plans.iso_masks if plans.iso_masks.shape[0] else np.zeros(1, dtype=np.int64)
    return DevicePlans(plans.k, bool(plans.induced), cp.asarray(plans.order.astype(np.int32).ravel()),
                       cp.asarray(conn.ravel()), cp.asarray(lt.ravel()), cp.asarray(gt.ravel()),
                       cp.asarray(iso.astype(np.int64)))


def device_graph(graph: GraphView | DeviceGraph) -> DeviceGraph:
    if isinstance(graph, DeviceGraph):
        return graph
    cp = cupy()
    return DeviceGraph(cp.asarray(graph.offsets, dtype=cp.int64), cp.asarray(graph.degree, dtype=cp.int32),
                       cp.asarray(graph.pool, dtype=cp.int32))


def device_batch(batch: BatchView | DeviceBatch) -> DeviceBatch:
    if isinstance(batch, DeviceBatch):
        return batch
    cp = cupy()
    partner = batch.partner if batch.partner.shape[0] else np.zeros(1, np.int32)
    rank = batch.rank if batch.rank.shape[0] else np.zeros(1, np.int32)
    return DeviceBatch(cp.asarray(batch.slot, dtype=cp.int32), cp.asarray(batch.ptr, dtype=cp.int64),
                       cp.asarray(partner, dtype=cp.int32), cp.asarray(rank, dtype=cp.int32))


def device_tasks(tasks: TaskList | DeviceTasks) -> DeviceTasks:
    if isinstance(tasks, DeviceTasks):
        return tasks
    cp = cupy()
    return DeviceTasks(cp.asarray(tasks.u, dtype=cp.int32), cp.asarray(tasks.v, dtype=cp.int32),
                       cp.asarray(tasks.rank, dtype=cp.int32), cp.asarray(tasks.plan, dtype=cp.int32))


def _plans(plans: PlanTable | DevicePlans) -> DevicePlans:
    return plans if isinstance(plans, DevicePlans) else device_plans(plans)


def _ptr(array) -> Any:
    return NULL if array is None else array


class RunStats(NamedTuple):
    """Work counters of one kernel run."""

    scanned: int  # anchor-row entries read (coalesced, 32 per warp step)
    probes: int  # binary-search steps (one scattered row entry each)
    tasks: int


@dataclass
class Launch:
    """How a run is spread: warps per block fixed; blocks and chunk chosen per run."""

    blocks: int
    chunk: int


def launch_shape(n_tasks: int) -> Launch:
    """Enough resident warps to fill the device; chunk small enough that the queue balances."""
    cp = cupy()
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    blocks = max(1, min(sms * 4, -(-n_tasks // WARPS_PER_BLOCK)))
    warps = blocks * WARPS_PER_BLOCK
    chunk = int(max(1, min(16, n_tasks // (warps * 64))))
    return Launch(blocks, chunk)


def heavy_first(graph: DeviceGraph, tasks: DeviceTasks):
    """Task order by decreasing min(deg u, deg v), so the longest tasks start first."""
    cp = cupy()
    cost = cp.minimum(graph.degree[tasks.u], graph.degree[tasks.v])
    return cp.argsort(-cost.astype(cp.int64)).astype(cp.int64)


def _deadline(budget_s: float | None) -> np.uint64:
    if budget_s is None:
        return np.uint64(0)
    cp = cupy()
    now = cp.zeros(1, dtype=cp.uint64)
    kernel("match.cu", "read_timer")((1,), (1,), (now,))
    return np.uint64(int(now.get()[0]) + int(budget_s * 1e9))


class Split(NamedTuple):
    """Sub-tasks of a split run: sub-task i runs task parent[i] over position 2's anchor-row
    indices [lo[i], hi[i]); a task's sub-tasks are consecutive and partition its row."""

    parent: Any  # int64[S]
    lo: Any  # int32[S]
    hi: Any  # int32[S]
    ends: Any  # int64[T]: sub-tasks of task t end at ends[t]
    size: int


WHOLE_ROW = 2**31 - 1


def split_tasks(graph: DeviceGraph, plans: DevicePlans, tasks: DeviceTasks, chunk: int) -> Split:
    """Cut every task whose position-2 anchor row is longer than `chunk` into row ranges of
    `chunk` entries (issue 7's task splitting, done up front at the seed level)."""
    cp = cupy()
    plan = tasks.plan if tasks.plan is not None else cp.zeros(tasks.size, dtype=cp.int32)
    du = graph.degree[tasks.u].astype(cp.int64)
    dv = graph.degree[tasks.v].astype(cp.int64)
    if plans.k <= 2:
        nsub = cp.ones(tasks.size, dtype=cp.int64)
    else:
        c2 = plans.conn.reshape(-1, 8)[:, 2][plan]
        d = cp.where((c2 & 3) == 3, cp.minimum(du, dv), cp.where((c2 & 1) == 1, du, dv))
        nsub = cp.maximum(1, (d + chunk - 1) // chunk)
    ends = cp.cumsum(nsub)
    total = int(ends[-1]) if tasks.size else 0
    idx = cp.arange(total, dtype=cp.int64)
    parent = cp.searchsorted(ends, idx, side="right").astype(cp.int64)
    j = idx - (ends - nsub)[parent]
    lo = (j * chunk).astype(cp.int32)
    hi = cp.where(j == nsub[parent] - 1, WHOLE_ROW, (j + 1) * chunk).astype(cp.int32)
    return Split(parent, lo, hi, ends, total)


def _per_task(split: Split, sub_counts):
    """Per-task sums of the sub-task counts (exact, int64)."""
    cp = cupy()
    csum = cp.zeros(split.size + 1, dtype=cp.int64)
    cp.cumsum(sub_counts, out=csum[1:])
    starts = cp.concatenate([cp.zeros(1, dtype=cp.int64), split.ends[:-1]])
    return csum[split.ends] - csum[starts]


def run_match(graph: DeviceGraph, plans: DevicePlans, tasks: DeviceTasks, batch: DeviceBatch,
              check_other: bool, *, counts=None, first: int = 0, last: int | None = None, perm=None,
              split: Split | None = None, out=None, out_offsets=None, expect=None,
              window: tuple[int, int] = (0, 0), stats=None, budget_s: float | None = None) -> int:
    """One launch of match_tasks over tasks (or, with `split`, sub-tasks) [first, last); returns
    the matches found.

    Raises DeadlineExceeded when `budget_s` ran out, EngineError when a listing disagrees with
    `expect`.
    """
    cp = cupy()
    last = (split.size if split is not None else tasks.size) if last is None else last
    n = last - first
    if n <= 0:
        return 0
    shape = launch_shape(n)
    total = cp.zeros(1, dtype=cp.uint64)
    queue = cp.zeros(1, dtype=cp.uint64)
    flags = cp.zeros(1, dtype=cp.int32)
    deadline = _deadline(budget_s)
    iso = plans.iso_masks
    kernel("match.cu", "match_tasks")(
        (shape.blocks,), (WARPS_PER_BLOCK * 32,),
        (graph.offsets, graph.degree, graph.pool,
         plans.order, plans.conn, plans.lt, plans.gt, np.int32(plans.k), np.int32(plans.induced),
         tasks.u, tasks.v, _ptr(tasks.rank), _ptr(tasks.plan), _ptr(perm),
         _ptr(split.parent if split else None), _ptr(split.lo if split else None),
         _ptr(split.hi if split else None),
         np.int64(first), np.int64(last),
         batch.slot, batch.ptr, batch.partner, batch.rank,
         iso, np.int32(iso.shape[0] if plans.induced else 0), np.int32(bool(check_other)),
         _ptr(counts), total,
         _ptr(out), _ptr(out_offsets), _ptr(expect), np.int64(window[0]), np.int64(window[1]),
         queue, np.int32(shape.chunk), _ptr(stats), deadline, flags))
    got = cp.concatenate([total.view(cp.int64), flags.astype(cp.int64)]).get()
    if got[1] & 2:
        raise DeadlineExceeded(f"match_tasks stopped after {budget_s} s")
    if got[1] & 1:
        raise EngineError("a listing round found a different number of matches than its count")
    return int(got[0])


def _order(graph: DeviceGraph, tasks: DeviceTasks, split: Split | None, balance: bool):
    if not balance or tasks.size < 2:
        return None
    if split is None:
        return heavy_first(graph, tasks)
    cp = cupy()
    cost = cp.minimum(graph.degree[tasks.u], graph.degree[tasks.v]).astype(cp.int64)[split.parent]
    return cp.argsort(-cost).astype(cp.int64)


def count_tasks(graph: GraphView | DeviceGraph, plans: PlanTable | DevicePlans, tasks: TaskList | DeviceTasks,
                batch: BatchView | DeviceBatch, check_other: bool = False, *, balance: bool = True,
                split: int | None = None, stats=None, budget_s: float | None = None) -> np.ndarray:
    """Matches found by each task (int64[T], host): the CPU engine's `count_tasks`.

    `split`: cut tasks into sub-tasks of at most that many position-2 candidates (same counts).
    """
    cp = cupy()
    g, p, t = device_graph(graph), _plans(plans), device_tasks(tasks)
    sub = split_tasks(g, p, t, split) if split else None
    counts = cp.zeros(sub.size if sub else t.size, dtype=cp.int64)
    run_match(g, p, t, device_batch(batch), check_other, counts=counts, perm=_order(g, t, sub, balance),
              split=sub, stats=stats, budget_s=budget_s)
    return (_per_task(sub, counts) if sub else counts).get()


def count_total(graph: GraphView | DeviceGraph, plans: PlanTable | DevicePlans, tasks: TaskList | DeviceTasks,
                batch: BatchView | DeviceBatch, check_other: bool = False, *, balance: bool = True,
                split: int | None = None, stats=None, budget_s: float | None = None) -> int:
    """The sum of `count_tasks` without per-task counts (static counting)."""
    g, p, t = device_graph(graph), _plans(plans), device_tasks(tasks)
    sub = split_tasks(g, p, t, split) if split else None
    return run_match(g, p, t, device_batch(batch), check_other, perm=_order(g, t, sub, balance), split=sub,
                     stats=stats, budget_s=budget_s)


def list_tasks(graph: GraphView | DeviceGraph, plans: PlanTable | DevicePlans, tasks: TaskList | DeviceTasks,
               batch: BatchView | DeviceBatch, counts: np.ndarray, check_other: bool = False, *,
               buffer_bytes: int = LIST_BUFFER_BYTES) -> np.ndarray:
    """The matches of each task as rows (pattern-vertex order, internal ids): the CPU engine's
    `list_tasks`.  Rows are written into a device buffer of `buffer_bytes` in rounds; a task
    whose rows straddle two rounds is re-run and writes only its share of each."""
    cp = cupy()
    g, p, t, b = device_graph(graph), _plans(plans), device_tasks(tasks), device_batch(batch)
    counts = np.asarray(counts, dtype=np.int64)
    ends = np.cumsum(counts)
    starts = ends - counts
    n_rows = int(ends[-1]) if counts.shape[0] else 0
    out = np.empty((n_rows, p.k), dtype=np.int32)
    if n_rows == 0:
        return out
    cap = max(1, buffer_bytes // (4 * p.k))
    buf = cp.empty(min(cap, n_rows) * p.k, dtype=cp.int32)
    d_starts = cp.asarray(starts)
    d_expect = cp.asarray(counts)
    for lo in range(0, n_rows, cap):
        hi = min(lo + cap, n_rows)
        first = int(np.searchsorted(ends, lo, side="right"))
        last = int(np.searchsorted(starts, hi, side="left"))
        run_match(g, p, t, b, check_other, first=first, last=last, out=buf, out_offsets=d_starts,
                  expect=d_expect, window=(lo, hi))
        out[lo:hi] = buf[: (hi - lo) * p.k].reshape(hi - lo, p.k).get()
    return out


def static_tasks(graph: DeviceGraph, num_vertices: int, plans: PlanTable | DevicePlans) -> DeviceTasks:
    """TaskList.static of the device graph's edges, built on the device, minus the orientations
    that plan 0's seed constraint rejects anyway (same counts, half the tasks)."""
    cp = cupy()
    p = _plans(plans)
    deg = graph.degree[:num_vertices].astype(cp.int64)
    row_end = cp.cumsum(deg)
    total = int(row_end[-1]) if num_vertices else 0
    item = cp.arange(total, dtype=cp.int64)
    src = cp.searchsorted(row_end, item, side="right")
    dst = graph.pool[graph.offsets[src] + item - (row_end - deg)[src]]
    lt, gt = (int(x) for x in cp.stack([p.lt[1], p.gt[1]]).get())
    if lt & 1:
        keep = dst < src
        src, dst = src[keep], dst[keep]
    elif gt & 1:
        keep = dst > src
        src, dst = src[keep], dst[keep]
    return DeviceTasks(src.astype(cp.int32), dst.astype(cp.int32), None, None)


def degree_ordered(graph: DeviceGraph, num_vertices: int) -> DeviceGraph:
    """The same graph relabelled so that ids ascend with degree (ties by id), as a slack-free
    CSR.  Counts are label-independent, so a static count may run on it: with ids in degree
    order the symmetry bounds (later positions hold larger ids) leave a hub only its few
    higher-degree neighbours to scan, the usual degree orientation of static counting."""
    cp = cupy()
    deg = graph.degree[:num_vertices].astype(cp.int64)
    rank = cp.empty(num_vertices, dtype=cp.int64)
    rank[cp.argsort(deg * num_vertices + cp.arange(num_vertices, dtype=cp.int64))] = cp.arange(
        num_vertices, dtype=cp.int64)
    row_end = cp.cumsum(deg)
    total = int(row_end[-1]) if num_vertices else 0
    item = cp.arange(total, dtype=cp.int64)
    src = cp.searchsorted(row_end, item, side="right")
    dst = graph.pool[graph.offsets[src] + item - (row_end - deg)[src]].astype(cp.int64)
    key = (rank[src] << 32) | rank[dst]
    key.sort()
    new_deg = deg[cp.argsort(rank)].astype(cp.int32)
    offsets = cp.cumsum(new_deg, dtype=cp.int64) - new_deg
    return DeviceGraph(offsets, new_deg, (key & 0xFFFFFFFF).astype(cp.int32))
