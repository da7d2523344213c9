"""The CUDA engine: a thin CuPy wrapper around `match.cu` (matching) and `graph.cu` (graph updates).

`count_tasks` / `list_tasks` have the CPU engine's contract and accept the same plain
arrays (host numpy, uploaded) or their device forms (`DeviceGraph`/`DevicePlans`/
`DeviceTasks`/`DeviceBatch` of CuPy arrays).  Each `.cu` file is compiled once per process
and device with NVRTC (`match.cu` twice: with statistics, for runs that ask for them, and
without, which leaves their registers to the search); the cache key covers the source, the
options and (through a `-D` option) the hash of every header, and `-arch` is the device's
own.  CuPy is imported on first use only, so importing this module needs no GPU.
"""

from __future__ import annotations

import functools
import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from deltamatch.kernels.pair_order import sort_keys
from deltamatch.kernels.pair_table import changed_pair_filter, changed_pair_table
from deltamatch.kernels.plan_table import (
    LAST_PAIRS,
    BatchView,
    GraphView,
    PlanTable,
    TaskList,
    empty_batch,
    is_edge_induced_diamond,
    is_edge_induced_four_cycle,
    is_edge_induced_house,
    kept_last_levels,
    memo_plans,
)

KERNEL_DIR = Path(__file__).resolve().parent
MATCH_WARPS_PER_BLOCK = 4  # match_body.cuh's DM_WARPS_PER_BLOCK unless a build sets it (`block_warps`)
FORMULA_WARPS_PER_BLOCK = 8  # formulas.cu's DM_FORMULA_WARPS
LIST_BUFFER_BYTES = 1 << 28
NULL = np.uint64(0)

_modules: dict[tuple[int, str, bool, tuple[str, ...]], Any] = {}
_functions: dict[tuple[int, str, str, bool, tuple[str, ...]], Any] = {}


class EngineError(RuntimeError):
    """The device reported an inconsistency (a listing that disagrees with its counts)."""


class DeadlineExceeded(RuntimeError):
    """A run stopped at its time limit; its counts are incomplete and must not be used."""


def cupy():
    """The CuPy module (imported here, lazily)."""
    import cupy as cp

    return cp


def device_id() -> int:
    """The current device's id: the runtime's own call, without the `cupy.cuda.Device` object a
    lookup would build on every launch."""
    return cupy().cuda.runtime.getDevice()


def header_hash() -> str:
    """SHA-256 over every header next to the sources (part of the compile cache key)."""
    h = hashlib.sha256()
    for path in sorted(KERNEL_DIR.glob("*.cuh")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


# Whether builds carry source line tables (`-lineinfo`, the same code), for Nsight Compute's source
# view (bench/gpu/ncu_batch.py --lineinfo; its CUDA-source page printed empty in session 27, the
# SASS page carries the samples).
LINEINFO = False


def compile_options(compute_capability: str) -> tuple[str, ...]:
    """NVRTC options for a device of the given compute capability (e.g. '90'), with LINEINFO."""
    return (
        "--std=c++17",
        f"-arch=sm_{compute_capability}",
        f"-I{KERNEL_DIR}",
        f"-DDM_HEADERS_SHA256_PREFIX=0x{header_hash()[:15]}",
    ) + (("-lineinfo",) if LINEINFO else ())


def module(name: str, stats: bool = False, defines: tuple[str, ...] = ()):
    """The compiled RawModule of kernels/<name> for the current device (compiled once); `stats`:
    the build whose kernels keep the DM_ST_* counters (match.cu's DM_STATS); `defines`: the
    build's other macros as NAME=VALUE (`Balance.defines`: match.cu builds without an
    optimization that is compiled in)."""
    cp = cupy()
    dev = cp.cuda.Device()
    key = (dev.id, name, stats, defines)
    mod = _modules.get(key)
    if mod is None:
        source = (KERNEL_DIR / name).read_text()
        options = (compile_options(dev.compute_capability) + (("-DDM_STATS=1",) if stats else ())
                   + tuple(f"-D{d}" for d in defines))
        mod = cp.RawModule(code=source, options=options, backend="nvrtc")
        mod.compile()
        _modules[key] = mod
    return mod


def kernel(module_name: str, function: str, stats: bool = False, defines: tuple[str, ...] = ()):
    """The kernel `function` of `module`'s build, looked up once per device: a lookup through the
    module is a driver call and a new Function object each time.  An update's eight lookups took
    39.5 us before and 9.7 after (timeline.py --step-clock, sessions 30 and 31, H100)."""
    key = (device_id(), module_name, function, stats, defines)
    fn = _functions.get(key)
    if fn is None:
        fn = _functions[key] = module(module_name, stats, defines).get_function(function)
    return fn


# The match kernels' units: match_memo.cu holds the memo's two, match.cu the rest (both include
# match_body.cuh; one unit of all six took nvcc 45-58 s, each now about 25).
MEMO_KERNELS = frozenset({"match_memo", "match_memo_shared"})
MATCH_UNITS = ("match.cu", "match_memo.cu")


def match_unit(function: str) -> str:
    """The source unit of match kernel `function`."""
    return "match_memo.cu" if function in MEMO_KERNELS else "match.cu"


def warm_up(builds: tuple[tuple[str, ...], ...] = ()) -> None:
    """Compile every kernel module the service runs now (worker start) rather than on the first
    batch: the default builds (the deferred-chunk kernels and the timers always come from them)
    and the match units' `builds` (`Balance.builds`: those of the service's switches); their
    statistics builds are compiled when a run first asks for statistics."""
    for name in (*MATCH_UNITS, "graph.cu", "formulas.cu", "triangle_table.cu"):
        module(name)
    for defines in builds:
        for name in MATCH_UNITS:
            module(name, defines=defines)


class DeviceGraph(NamedTuple):
    """GraphView with CuPy arrays (same row layout); `oriented`: row v holds only the neighbours of
    higher id (`degree_oriented`), which only clique plans may run on (`orientable`)."""

    offsets: Any
    degree: Any
    pool: Any
    oriented: bool = False
    host_degree: Any = None  # the degrees on the host, where the caller keeps them: tasks are ordered there
    max_degree: int | None = None  # an upper bound of the degrees, where the caller keeps one
    hub_row: Any = None  # uint64[rows]: the address of v's row bitmap, 0 for most v (`with_hub_bitmaps`)
    hub_bits: Any = None  # the bitmaps hub_row points into (held here so that they live as long)
    # The triangles through every edge, kept with the rows (workers/triangle_table.py), or None:
    # counting runs read last levels that are an edge's common neighbourhood from them.
    tt_keys: Any = None  # uint64[2^tt_bits]
    tt_t: Any = None  # uint32[2^tt_bits]
    tt_bits: int = 0


class DeviceBatch(NamedTuple):
    """BatchView with CuPy arrays, its changed pairs' filter (`pair_table.changed_pair_filter`), and
    the pairs as a pair table (`pair_table.py`) when there are at least PAIR_TABLE_MIN_PAIRS of them
    (else None and 0).  `removals` > 0 makes it a joint count's batch (`joint`)."""

    slot: Any
    ptr: Any
    partner: Any
    rank: Any
    pair_filter: Any  # uint32[2^filter_bits]
    filter_bits: int
    pair_keys: Any  # uint64[2^pair_bits]
    pair_rank: Any  # int32[2^pair_bits]
    pair_bits: int
    removals: int = 0

    def joint(self, removals: int) -> DeviceBatch:
        """This batch for a joint count: both sides of it in one run on G_old ∪ I, its first
        `removals` ranks the deletions (match.cu: ranked_out); removal tasks find G_old's matches
        and insertion tasks G_new's, as the two sides on their own graphs would."""
        return self._replace(removals=removals)

    @classmethod
    def of(cls, slot, ptr, partner, rank, pair_filter, table: tuple = ()) -> DeviceBatch:
        """The batch of uploaded arrays; `table`: `pair_table_arrays`'s (keys, ranks) uploaded, or
        nothing (no pair table)."""
        filter_bits = int(pair_filter.shape[0]).bit_length() - 1
        if not table:
            return cls(slot, ptr, partner, rank, pair_filter, filter_bits, None, None, 0)
        keys, ranks = table
        return cls(slot, ptr, partner, rank, pair_filter, filter_bits, keys, ranks,
                   int(keys.shape[0]).bit_length() - 1)


def pair_table_arrays(a: np.ndarray, b: np.ndarray, rank: np.ndarray) -> tuple[np.ndarray, ...]:
    """The pair table's (keys, ranks) of a batch's changed pairs {a[i], b[i]} of rank[i]
    (`changed_pair_table`), or nothing below PAIR_TABLE_MIN_PAIRS pairs."""
    if a.shape[0] < PAIR_TABLE_MIN_PAIRS:
        return ()
    keys, ranks, _ = changed_pair_table(a, b, rank)
    return keys, ranks


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
    """A PlanTable lowered to per-position bitmasks and its analysis, on the device."""

    k: int
    induced: bool
    order: Any  # int32[plans * k]
    conn: Any  # int32[plans * 8]: bit j = positions l, j adjacent
    lt: Any  # int32[plans * 8]: bit j = value at l < value at j
    gt: Any  # int32[plans * 8]: bit j = value at l > value at j
    dep: Any  # int32[plans * 8]: PlanTable.dep
    base: Any  # int32[plans * 8]: PlanTable.base
    last_two: Any  # int32[plans]: PlanTable.last_two
    seed_swap: Any  # int32[plans]: PlanTable.seed_swap
    swaps: bool  # whether any plan's seed_swap is set
    iso_masks: Any  # int64[labellings]
    kept_j: Any  # int32[plans]: plan_table.kept_last_levels
    memo: Any  # int32[plans]: plan_table.memo_plans
    memos: bool  # whether any plan is a memo plan
    set_bounded: bool  # k = 4 and every plan builds level 3 from level 2's set (set_bounded)
    walks_level_two: bool  # every counting task stores its level-2 set (k >= 4, no k = 4 LAST_PAIRS plan)


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


def _per_position(values: np.ndarray) -> np.ndarray:
    """int32[plans, 8] from int[plans, k] (the kernel indexes plan p, position l as p * 8 + l)."""
    full = np.zeros((values.shape[0], 8), dtype=np.int32)
    full[:, : values.shape[1]] = values
    return full


# Whether `upload` packs into pinned buffers of its own and copies from them (False: CuPy's
# asarray, which stages through its pinned pool and watch list on every call).
PINNED_UPLOAD = True
STAGING_SLOTS = 4  # pinned buffers per device, taken in turn


class _StagingSlot:
    """A pinned host buffer `upload` packs into, and the event of the copy that last read it."""

    def __init__(self, nbytes: int) -> None:
        self.memory = cupy().cuda.alloc_pinned_memory(nbytes)
        self.host = np.frombuffer(self.memory, dtype=np.uint8, count=nbytes)
        self.copied = None


# Per device: the staging ring and the slot to take next.
_STAGING: dict[int, list] = {}
_STAGING_LOCK = threading.Lock()


def _staging_slot(nbytes: int) -> _StagingSlot:
    """The current device's next staging buffer of at least `nbytes`, its last copy finished (a
    ring, so that an upload seldom waits: a slot comes round again after STAGING_SLOTS uploads)."""
    ring = _STAGING.setdefault(device_id(), [0, [None] * STAGING_SLOTS])
    turn, slots = ring
    ring[0] = (turn + 1) % STAGING_SLOTS
    slot = slots[turn]
    if slot is not None and slot.copied is not None:
        slot.copied.synchronize()
    if slot is None or slot.host.shape[0] < nbytes:
        slot = slots[turn] = _StagingSlot(1 << max(16, (nbytes - 1).bit_length()))
    return slot


def _pack(packed: np.ndarray, arrays: tuple[np.ndarray, ...], starts: list[int]) -> None:
    for a, start in zip(arrays, starts, strict=False):
        packed[start : start + a.nbytes] = np.ascontiguousarray(a).reshape(-1).view(np.uint8)


def _byte_starts(nbytes: list[int]) -> list[int]:
    """Where arrays of these sizes start in one buffer, each at a multiple of 8, and its size last."""
    starts = [0]
    for size in nbytes:
        starts.append(starts[-1] + -(-size // 8) * 8)
    return starts


def _uploaded_bytes(nbytes: int, fill) -> tuple[Any, Any]:
    """`nbytes` bytes that `fill(host)` writes into a host uint8 buffer, copied to the device in one
    copy on the current stream: (the device buffer, what `fill` returned).  With PINNED_UPLOAD the
    host buffer is a pinned one of a per-device ring, and the copy goes from there."""
    cp = cupy()
    if PINNED_UPLOAD and nbytes:
        device = cp.empty(nbytes, dtype=cp.uint8)
        with _STAGING_LOCK:  # a slot is packed and its copy queued by one thread at a time
            slot = _staging_slot(nbytes)
            filled = fill(slot.host)
            stream = cp.cuda.get_current_stream()
            cp.cuda.runtime.memcpyAsync(device.data.ptr, slot.memory.ptr, nbytes,
                                        cp.cuda.runtime.memcpyHostToDevice, stream.ptr)
            slot.copied = stream.record()
        return device, filled
    packed = np.empty(nbytes, dtype=np.uint8)
    filled = fill(packed)
    return cp.asarray(packed), filled


def _uploaded(arrays: tuple[np.ndarray, ...]) -> tuple[Any, list[int]]:
    """The arrays copied to the device in one copy on the current stream (`_uploaded_bytes`): (the
    device buffer, each array's byte offset in it, a multiple of 8)."""
    starts = _byte_starts([a.nbytes for a in arrays])
    return _uploaded_bytes(starts[-1], lambda host: _pack(host, arrays, starts))[0], starts


def upload(*arrays: np.ndarray) -> list:
    """1-D host arrays copied to the device in one copy on the current stream (`_uploaded`), as
    device views in order (they may differ in dtype).  From the pinned ring an update's nine
    arrays cost the host 48.6 us against 57.6 through CuPy's asarray, about half of either the nine
    views (2.6 us each; bench/gpu/host_costs.py, session 29, H100): `upload_addresses` has none."""
    device, starts = _uploaded(arrays)
    return [device[start : start + a.nbytes].view(a.dtype) for a, start in zip(arrays, starts, strict=False)]


def upload_addresses(*arrays: np.ndarray) -> tuple[Any, list[np.uint64]]:
    """`upload` for arrays that only kernels read: the device buffer, to be held until the launches
    that read it are queued (CuPy's pool gives freed memory to later work on the same stream
    only), and each array's device address as a kernel argument (`word`) instead of a view."""
    device, starts = _uploaded(arrays)
    return device, [np.uint64(device.data.ptr + start) for start in starts[:-1]]


def device_plans(plans: PlanTable) -> DevicePlans:
    cp = cupy()
    conn, lt, gt = plan_bits(plans)
    iso = plans.iso_masks if plans.iso_masks.shape[0] else np.zeros(1, dtype=np.int64)
    memo = memo_plans(plans)
    return DevicePlans(plans.k, bool(plans.induced), cp.asarray(plans.order.astype(np.int32).ravel()),
                       cp.asarray(conn.ravel()), cp.asarray(lt.ravel()), cp.asarray(gt.ravel()),
                       cp.asarray(_per_position(plans.dep).ravel()),
                       cp.asarray(_per_position(plans.base).ravel()),
                       cp.asarray(plans.last_two.astype(np.int32)),
                       cp.asarray(plans.seed_swap.astype(np.int32)), bool(plans.seed_swap.any()),
                       cp.asarray(iso.astype(np.int64)), cp.asarray(kept_last_levels(plans)),
                       cp.asarray(memo.astype(np.int32)), bool(memo.any()), set_bounded(plans),
                       walks_level_two(plans))


def walks_level_two(plans: PlanTable) -> bool:
    """Whether every counting task of `plans` builds and stores its level-2 set (match.cu: phase 0
    defers it or walks it), which seed pieces need: k >= 4, and at k = 4 no LAST_PAIRS plan, whose
    count follows from the set's size alone."""
    return plans.k >= 4 and not (plans.k == 4 and bool((plans.last_two == LAST_PAIRS).any()))


def set_bounded(plans: PlanTable) -> bool:
    """Whether every plan has four positions and builds level 3 from level 2's set (the 4-clique's
    plans): then what a level-2 candidate w costs below it is bounded by that set's length as well
    as by deg(w) (`Balance.cost_by_set`)."""
    return plans.k == 4 and bool((plans.base[:, 3] == 2).all())


def device_graph(graph: GraphView | DeviceGraph) -> DeviceGraph:
    if isinstance(graph, DeviceGraph):
        return graph
    cp = cupy()
    return DeviceGraph(cp.asarray(graph.offsets, dtype=cp.int64), cp.asarray(graph.degree, dtype=cp.int32),
                       cp.asarray(graph.pool, dtype=cp.int32))


def device_batch(batch: BatchView | DeviceBatch) -> DeviceBatch:
    if isinstance(batch, DeviceBatch):
        return batch
    partner = batch.partner if batch.partner.shape[0] else np.zeros(1, np.int32)
    rank = batch.rank if batch.rank.shape[0] else np.zeros(1, np.int32)
    pairs = batch.pairs()
    table = pair_table_arrays(*pairs)
    slot, ptr, partner, rank = (a.astype(t, copy=False) for a, t in zip(
        (batch.slot, batch.ptr, partner, rank), (np.int32, np.int64, np.int32, np.int32), strict=True))
    uploaded = upload(slot, ptr, partner, rank, changed_pair_filter(*pairs[:2]), *table)
    return DeviceBatch.of(*uploaded[:5], tuple(uploaded[5:])).joint(batch.removals)


def device_tasks(tasks: TaskList | DeviceTasks) -> DeviceTasks:
    """The tasks on the device, each array contiguous: a kernel reads its base pointer, so a strided
    view (a slice such as u[part::parts]) would hand it other tasks."""
    cp = cupy()
    if isinstance(tasks, DeviceTasks):
        return DeviceTasks(*(None if a is None else cp.ascontiguousarray(a) for a in tasks))
    return DeviceTasks(*upload(*(a.astype(np.int32, copy=False) for a in tasks)))


# PlanTable -> its DevicePlans, per device: a worker counts with the same few tables every batch,
# and uploading one is nine copies.  A table is held while cached, so its id is not
# reused by another table meanwhile.
_uploaded_plans: OrderedDict[tuple[int, int], tuple[PlanTable, DevicePlans]] = OrderedDict()
UPLOADED_PLANS_KEPT = 64


def _plans(plans: PlanTable | DevicePlans) -> DevicePlans:
    if isinstance(plans, DevicePlans):
        return plans
    key = (device_id(), id(plans))
    hit = _uploaded_plans.get(key)
    if hit is not None:
        _uploaded_plans.move_to_end(key)
        return hit[1]
    uploaded = device_plans(plans)
    _uploaded_plans[key] = (plans, uploaded)
    if len(_uploaded_plans) > UPLOADED_PLANS_KEPT:
        _uploaded_plans.popitem(last=False)
    return uploaded


def _ptr(array) -> Any:
    return NULL if array is None else array


def word(array, index: int) -> np.uint64:
    """The device address of array[index] as a kernel argument (a pointer passed by value): 0.7 us
    where the one-element slice CuPy would pack for it costs 2.7 (host_costs.py, session 30, H100)."""
    return np.uint64(array.data.ptr + index * array.itemsize)


MAX_SEED_PIECES = 32  # match.cu's gather_pieces: a lane a piece
# Balance.warps_per_sm's builds: resident warps an SM -> their defines (`block_warps` reads the block).
WARPS_PER_SM = {24: ("DM_WARPS_PER_BLOCK=8", "DM_WARPS_PER_SM=24"), 28: (),
                32: ("DM_WARPS_PER_BLOCK=8", "DM_WARPS_PER_SM=32"), 36: ("DM_WARPS_PER_SM=36",)}


@dataclass(frozen=True)
class Balance:
    """The in-GPU load-balance switches (PGMiner's ablation: none, splitting, + unrolling, + stealing).

    heavy_first: tasks start in decreasing min(deg u, deg v) order.
    split: a counting task (k >= 4) whose level-2 set costs at least `defer_cost` (the sum of
    1 + deg(w) over its candidates w) is deferred; the deferred sets are cut into chunks that all
    warps share in a second launch: `chunk` candidates each, or (0) chunks of equal estimated cost
    sized from the deferred total (`AUTO_CHUNK_SHARE` per resident warp).
    unroll: the last two levels of a counting task, and the single level of k = 3 tasks across up to
    32 tasks, as one flat list of items over the lanes.
    unroll_min_k (with unroll): the fewest pattern vertices of a plan table whose counting tasks
    (k >= 4) unroll; a table of 4 <= k < unroll_min_k runs as with unroll off (`for_pattern`).  At
    k = 4 the last two levels are level 2's set, a hub's row, and level 3: the pair lists are long
    and their owner searches cost more than the lanes they fill.  5, the default: against 4 (every
    table unrolled) the 4-clique, diamond and 4-cycle ran 1.13-1.30x faster on RMAT-20 batches of
    1,000 and 1.26-1.42x on RMAT-22 at 10^4 (docs/GPU.md, session 28), while the house (k = 5)
    needs unrolling for its memo (0.45-0.56x without; session 27).
    flat_below (with unroll, k >= 4): a task's last two levels run as the flat pair list only when
    its level-(k-2) candidates average fewer than `flat_below` pairs each (0, the default: always),
    else w by w (PGMiner's dynamic unrolling; match.cu's finish_last_two).  The statistics build
    and the builds without pair_window or list_checks run every list flat (they spill with the
    choice).  At 32 on RMAT-20 batches (session 27): the 4-clique, diamond and 4-cycle 1.10-1.27x
    faster than every list flat but no faster than splitting alone, the RMAT-18 house 0.80x.
    steal (with unroll, k >= 4): a flat pair list of at least `share_pairs` pairs is published, and
    warps that run out of tasks join it, claiming pieces of it (match_shared; PGMiner's warp
    stealing at the last two levels).
    fill (with steal): the first launch gets every resident warp, not one per task, so that a
    batch of fewer tasks than warps still has warps to join its long lists.  Off by default:
    measured 0.99-1.38x faster without on RMAT batches of 1,000 (docs/GPU.md, "Thresholds swept").
    pair_window (with unroll): a warp step of a pair list finds its pairs' candidates among the 32
    read at once from where the previous step ended, instead of a binary search of the whole list
    per pair (match.cu's DM_PAIR_WINDOW: a build of its own).
    hub_first: an adjacency test against a vertex of the match that has a hub bitmap reads it,
    whatever the candidate's degree, with no read of that degree first (match.cu's DM_HUB_FIRST: a
    build of its own).
    seed_swap: a counting task of a plan whose seed may be reversed runs with its lower-degree
    endpoint where level 2 iterates its row (`PlanTable.seed_swap`, `swapped_seeds`): a hub's
    row no longer becomes a level-2 set of the hub's size.
    pair_hash: whether a pair is changed in the batch, and its rank, is one probe of the batch's
    pair table instead of a binary search of one endpoint's partners (match.cu's DM_PAIR_HASH: a
    build of its own), in batches of at least PAIR_TABLE_MIN_PAIRS changed pairs (smaller ones get
    no table).  Measured on RMAT-20 4-cycle batches: 13-15% slower at 1,000 pairs, equal at 10^4,
    1.15x faster at 10^5 (docs/GPU.md, sessions 15 and 16).
    pair_filter: whether a pair is changed in the batch is first asked of the batch's pair filter
    (`pair_table.changed_pair_filter`: 16-32 bits a pair, 32 KB at 10^4 pairs), and only the pairs
    it passes (every changed one and 1-2% of the rest) are looked up in the pair table or the partner
    lists; a candidate the batch does not touch is then no longer skipped by its `slot` read.
    Measured in docs/GPU.md, session 27.
    list_checks (with unroll): a pair list's last-level checks are made once for the list's prefix,
    each pair choosing only between two anchors, instead of all of level_checks per pair
    (match.cu's DM_LIST_CHECKS: a build of its own; the statistics build runs without).
    drive_short: a warp building a level's set whole from an earlier level's set (`PlanTable.base`)
    walks the shortest row of a pattern neighbour instead, when the set is more than twice as long
    (match.cu's DM_DRIVE_SHORT: a build of its own; the CPU engine's drive_short).
    warps_per_sm: the resident warps an SM the match kernels but match_memo_shared are built for
    (match_body.cuh's DM_WARPS_PER_SM and DM_WARPS_PER_BLOCK: another value is a build of its own,
    `WARPS_PER_SM`): 28 (the default since session 39), blocks of 4 warps up to 72 registers, where
    NVRTC on the device fits match_tasks and match_memo in 64, so that 32 warps an SM hold them
    without spills (a launch is sized by what its kernel uses: `resident_blocks`), and
    match_shared in 66-72 (28 warps; NVRTC 13.0 on session 40's H100: 62, 66 and 61); 24, blocks
    of 8 up to 80 registers (the default until session 38); 32, blocks of 8 capped at 64
    registers, where match_tasks spills 12 bytes, match_shared 248 and match_memo 52 (nvcc here);
    36, blocks of 4 capped at 56 registers (9 blocks an SM: the most registers that hold more than
    half an SM's 64 warps), where match_tasks spills 320 bytes and match_shared 340 (nvcc here).
    Statistics builds keep 24 (their counters spill at 28).
    Session 40 (H100, the same batch): 36 against 28, warps active 52-55% of peak against 46-49%,
    the long launches 2.31 against 2.47 ms (diamond), 3.72 against 3.92 ms (4-cycle) and 0.178
    against 0.172 ms (4-clique); one joint batch reading each, 5.79 against 6.97 ms.
    Session 39 (H100, Nsight Compute, an RMAT-20 insert batch of 1,000): 28 against 24, the long
    launches 2.47 against 3.14 ms (diamond), 3.92 against 4.90 ms (4-cycle) and 0.169 against
    0.202 ms (4-clique), warps active 46-49% of peak against 35-37%; 32 no faster than 28 (2.50,
    3.99, 0.171 ms).  New joint batches (4-clique and 4-cycle, 1,000 with 10% deletions, each
    build in a process of its own): 6.13 and 7.38 ms against 7.17 and 8.05 ms (two H100 calls),
    6.72 against 7.29 ms (H200).
    ranked_touched: a warp building or counting a set drops, once for the set, the changed-pair
    lookups against a matched vertex that no changed pair touches (match.cu's DM_RANKED_TOUCHED: a
    build of its own).  The lookups ran at 7.4 lanes of 32 and were 37% of the warp instructions of
    the RMAT-20 4-cycle's longest launch at 1,000 (Nsight Compute's source counters, session 40);
    on against off (H100, one insert batch of 1,000): the longest launches 3.64 against 3.93 ms
    (4-cycle), 2.30 against 2.49 ms (diamond), 0.168 against 0.171 ms (4-clique), 10-13% fewer
    warp instructions, lanes per instruction 20.8, 21.5 and 26.3 against 18.8, 19.8 and 24.0.
    staged_lookups: a warp building or counting a set of a batch task checks it in two passes, the
    adjacency checks over the source into scratch, then the changed-pair lookups over the
    candidates that passed, 32 at a time (match.cu's DM_STAGED_LOOKUPS: a build of its own).  Made
    in the step that passed the adjacency checks, the lookups ran at 7.4 lanes of 32 (session 40,
    above); staged, match_tasks needs 66 registers (28 warps an SM, against 32) and match_shared 72
    (NVRTC 13.0).  Off until measured on the device.
    prefetch_next: a warp building a set from a source reads each lane's candidate of the next
    step before checking this step's (match.cu's DM_PREFETCH_NEXT: a build of its own).  Aimed at
    phase 0's long level-2 builds, latency-bound at about 3 us a step of 32 candidates
    (bench/gpu/task_times.py, session 35).  Session 36 (H100): 0.087 against 0.096 us per source
    entry, phase 0's slowest task 328 against 360 us, counts equal (its parity tests passed); off,
    since with drive_short off too match_shared spills 8 bytes (nvcc here).
    last_memo (with unroll, counting): the tasks of memo plans (`plan_table.memo_plans`: the house's
    roof-edge plans) run in a launch of their own (match_memo.cu), each sizing its last
    level once per distinct level-(k-2) vertex and weighing it by the prefixes that met it, as the
    CPU engine's last_memo does; not shared.  Measured on RMAT-18 house batches of 1,000: 1.9x
    faster (docs/GPU.md, session 17).
    memo_factor: the distinct keys a warp's memo holds before it is counted, per unit of the scratch
    width (match.cu's DM_MEMO_FACTOR, 4 by default: a host count of the RMAT-18 house kept 13.0x of
    the memo's 13.7x less pair work at 4, 6.9x at 2, 3.1x at 1; another value is a build of its own).
    memo_overlap (with last_memo): the memo's launch is queued first, on a stream of its own
    (`memo_stream`), and the rest's launches beside it, so that the warps its few hub tasks leave
    idle take the rest's tasks instead of waiting for them (with statistics, which wait for every
    launch, the two do not overlap).  Off by default: on the RMAT-18 house at 1,000 it gained what
    memo_share gains (0.76-0.77x the time) and nothing beside it (docs/GPU.md, session 18).
    memo_share (with last_memo and steal): the memo's launch shares its long flushes as the pair
    lists of other tasks are shared (match.cu's match_memo_shared): warps out of tasks join a hub
    task's flush instead of idling while its warp counts it alone.  Measured on the RMAT-18 house at
    1,000: 0.76-0.78x the time, its two plans 287 and 260 ms where they took 584 and 565 at a busy
    spread of 1.00 (docs/GPU.md, session 18).
    cost_by_set (with split, automatic chunks, plans that are `set_bounded`): a deferred candidate w
    costs 1 + min(deg(w), the set's length) instead of 1 + deg(w), since level 3, built from the
    set, reads the shorter side (drive_short, hub bitmaps).  On the RMAT-20 4-clique at 1,000 it
    narrows phase 1's per-warp busy spread from 2.2-2.4 to 1.5-1.6 (busiest warp 510-540 us to
    367-379) at the same time a batch; applied to the diamond's and the 4-cycle's plans, whose level
    3 is not bounded by the set, it made them 0.78-0.79x as fast (docs/GPU.md, session 26).
    seed_pieces (with split and automatic chunks, counting a host-ordered list of tasks that all store
    their level-2 set): a task whose seed's endpoints both have degree at least `piece_min_degree`
    has its level-2 set built by `seed_pieces` warps (at most 32), each a range of its source row,
    before phase 0 (match.cu's match_pieces), and joined into one deferred set (gather_pieces); phase
    0 runs the other tasks.  Phase 0's slowest warps are such sets built by one warp: each task of
    an RMAT-20 batch of 1,000 counted alone (bench/gpu/task_times.py, session 35, H100), the slowest
    took 315-356 us, every one a seed whose endpoints both have degree about 3,500 (a level-2 source
    of 3,500 at about 3 us a warp step), so the first least degree, 4,096, pieced none of them.
    From 1,024, on the 4-clique with 10% deletions (joint), phase 0's busiest warp fell from 330-940
    us to 52-54 in the statistics build and phase 1's busy max/min to 1.12-1.13; a batch run as the
    service runs it, 1.181 ms against 1.371 (timeline.py --pipeline, 30 interleaved runs; 0.986
    against 1.280 and 1.140 against 1.397 on two other machines, but 1.884 against 1.845 on a host
    twice as slow, where the batch is host-bound and the pieces' launch costs what it saves); insert
    batches of 1,000 and 10^4 (4-clique, diamond, 4-cycle) and the house at 1,000 read as fast as
    without (balance_sweep.py, within 2%).  0: off.
    memo_chunks (with split and last_memo): the deferred tasks of memo plans are cut into chunks of
    equal estimated cost, memo_chunks per resident warp in all (0, the default: memo tasks are not
    deferred).  Each chunk fills a table of its own, so chunks trade the memo's reuse within a task
    for warps; on the RMAT-18 house at 1,000 the trade lost: 1,358 ms at 1 per warp as at 0, 1,707
    at 4, 2,567 at 64 (plans 2 and 5 read 4.6x the entries at 4; docs/GPU.md, session 17).
    """

    heavy_first: bool = True
    split: bool = True
    defer_cost: int = 2048
    chunk: int = 0
    unroll: bool = True
    unroll_min_k: int = 5
    flat_below: int = 0
    steal: bool = True
    share_pairs: int = 2048
    fill: bool = False
    pair_window: bool = True
    seed_swap: bool = True
    hub_first: bool = True
    pair_hash: bool = True
    pair_filter: bool = True
    list_checks: bool = True
    drive_short: bool = True
    ranked_touched: bool = True
    prefetch_next: bool = False
    staged_lookups: bool = False
    warps_per_sm: int = 28
    last_memo: bool = True
    memo_factor: int = 4
    memo_chunks: int = 0
    memo_overlap: bool = False
    memo_share: bool = True
    cost_by_set: bool = True
    seed_pieces: int = 32
    piece_min_degree: int = 1024

    def __post_init__(self) -> None:
        if not 0 <= self.seed_pieces <= MAX_SEED_PIECES:
            raise ValueError(f"seed_pieces: expected 0 to {MAX_SEED_PIECES}, got {self.seed_pieces}")
        if self.warps_per_sm not in WARPS_PER_SM:
            raise ValueError(f"warps_per_sm: expected one of {tuple(WARPS_PER_SM)}, got {self.warps_per_sm}")

    def for_pattern(self, k: int) -> Balance:
        """The switches a plan table of `k`-vertex patterns runs under: unroll (and with it steal
        and last_memo, which need it) off where 4 <= k < unroll_min_k."""
        return _for_pattern(self, k)

    def unroll_limit(self) -> int:
        """match.cu's `unroll`: flat pair lists where a candidate averages fewer pairs (0: never)."""
        if not self.unroll:
            return 0
        return self.flat_below if self.flat_below > 0 else np.iinfo(np.int32).max

    def defines(self, pair_table: bool = True) -> tuple[str, ...]:
        """match.cu's macros for the switches that select a build of their own (none: the default),
        for a batch with a pair table or (`pair_table` False) without one."""
        off = (("DM_PAIR_WINDOW=0", self.pair_window), ("DM_HUB_FIRST=0", self.hub_first),
               ("DM_PAIR_HASH=0", self.pair_hash and pair_table), ("DM_LIST_CHECKS=0", self.list_checks),
               ("DM_DRIVE_SHORT=0", self.drive_short), ("DM_RANKED_TOUCHED=0", self.ranked_touched))
        on = (("DM_PREFETCH_NEXT=1", self.prefetch_next), ("DM_STAGED_LOOKUPS=1", self.staged_lookups))
        factor = () if self.memo_factor == Balance.memo_factor else (f"DM_MEMO_FACTOR={self.memo_factor}",)
        warps = WARPS_PER_SM[self.warps_per_sm]
        return (tuple(define for define, flag in off if not flag)
                + tuple(define for define, flag in on if flag) + factor + warps)

    def builds(self) -> tuple[tuple[str, ...], ...]:
        """The defines of every match.cu build a run under this Balance may launch."""
        return tuple(dict.fromkeys((self.defines(), self.defines(pair_table=False))))


@functools.lru_cache(maxsize=256)
def _for_pattern(balance: Balance, k: int) -> Balance:
    """`Balance.for_pattern`, memoized: a `replace` of the dataclass took 9.5 us on this project's
    machine, and a count asks three times (session 30)."""
    if balance.unroll and 4 <= k < balance.unroll_min_k:
        return replace(balance, unroll=False)
    return balance


NO_BALANCE = Balance(heavy_first=False, split=False, unroll=False, steal=False, fill=False, seed_swap=False)
# The least scratch width of a memo run: its table is flushed 32 keys (a warp step) before it holds
# Balance.memo_factor * width (match.cu: memo_add).
MEMO_MIN_WIDTH = 32
# The fewest changed pairs for which a batch gets a pair table (Balance.pair_hash).
PAIR_TABLE_MIN_PAIRS = 10_000
# Deferred chunks per resident warp when the chunk size is automatic (64: docs/GPU.md, session 13)
AUTO_CHUNK_SHARE = 64
MIN_CHUNK_COST = 256  # the smallest estimated cost of an automatic chunk
# The kernel's DM_ST_* slots.
STAT_NAMES = ("scanned", "probes", "tasks", "lanes", "steps", "deferred", "published", "joins", "shared",
              "memo_flushes")
BOARD_WORDS = 16  # DM_BOARD_WORDS: a warp's record on the work-sharing board
SHARING_KERNELS = ("match_shared", "match_memo_shared")  # the kernels that publish and join pair lists


@dataclass
class KernelStats:
    """Counters of every launch a call made (pass one in to have it filled).

    scanned: set-source entries read; probes: binary-search steps and hub-bitmap tests; tasks:
    tasks and chunks run; lanes / steps: active lanes summed over the warp steps of the set and
    pair loops (each active lane reads one entry, so lanes = scanned; lane utilization =
    lanes / (32 * steps)); deferred: tasks whose level-2 set was split; chunks: the
    pieces they were cut into; pieced: tasks whose level-2 set was built in pieces (seed_pieces);
    published: pair lists opened for sharing; joins: lists an idle warp
    joined; shared: pairs those joiners counted; memo_flushes: memo tables counted (one per memo
    task, more where a table filled within its task); kernel_s: device time of the launches (CUDA
    events recorded behind `hold_stream`: the host's launch overhead left out); busy_ns: per
    launch, the nanoseconds each warp worked (waiting for work not counted).
    """

    scanned: int = 0
    probes: int = 0
    tasks: int = 0
    lanes: int = 0
    steps: int = 0
    deferred: int = 0
    published: int = 0
    joins: int = 0
    shared: int = 0
    memo_flushes: int = 0
    chunks: int = 0
    pieced: int = 0
    kernel_s: float = 0.0
    busy_ns: list = field(default_factory=list)

    def add(self, raw: np.ndarray, busy: np.ndarray) -> None:
        """Adds one launch's DM_ST_* counters and per-warp busy times."""
        for name, value in zip(STAT_NAMES, raw.tolist(), strict=True):
            setattr(self, name, getattr(self, name) + int(value))
        self.busy_ns.append(busy)

    @property
    def lane_utilization(self) -> float:
        return self.lanes / (32 * self.steps) if self.steps else float("nan")

    def longest_busy(self) -> np.ndarray:
        """Per-warp busy nanoseconds of the launch whose busiest warp worked longest (every warp
        launched, idle ones at 0); empty before a launch."""
        if not self.busy_ns:
            return np.zeros(0, dtype=np.float64)
        return max(self.busy_ns, key=lambda b: int(b.max(initial=0))).astype(np.float64)

    def busy_spread(self) -> tuple[float, float]:
        """(max/min, p99/median) of per-warp busy time in the longest launch, over the warps
        that worked."""
        busy = self.longest_busy()
        busy = busy[busy > 0]
        if busy.size == 0:
            return float("nan"), float("nan")
        return float(busy.max() / busy.min()), float(np.percentile(busy, 99) / np.median(busy))


@dataclass
class Launch:
    """How a run is spread: warps per block fixed by the build; blocks and chunk chosen per run."""

    blocks: int
    chunk: int
    warps_per_block: int

    @property
    def warps(self) -> int:
        return self.blocks * self.warps_per_block

    @property
    def threads(self) -> int:
        """Threads a block."""
        return self.warps_per_block * 32


# Slots of a run's zeroed uint64 counters: matches found, flags (int32: bit 0 listing mismatch, bit 1
# deadline, bit 2 no arena room for seed pieces), the task queues of phase 0 and 1, the arena's
# fill, the deferred-task count, the warps still on their own tasks in phase 0 and 1 (work
# sharing), and phase 1's chunks and their estimated cost in all.
TOTAL, FLAGS, QUEUE, ARENA_USED, DEFERRED, ACTIVE, CHUNKS, CHUNK_COST = 0, 1, 2, 4, 5, 6, 8, 9
# ... then phase 1's chunks per cost class and each class's cursor (match.cu: deferred_chunk_order).
CHUNK_CLASSES = 64  # DM_CHUNK_CLASSES
CHUNK_CLASS_COUNT = 10
CHUNK_CLASS_CURSOR = CHUNK_CLASS_COUNT + CHUNK_CLASSES
# ... then the task queue of the seed pieces' launch (match_pieces, run as phase PIECES_PHASE).
PIECE_QUEUE = CHUNK_CLASS_CURSOR + CHUNK_CLASSES
COUNTERS = PIECE_QUEUE + 1
PIECES_PHASE = 2
SCRATCH_SHARE = 0.4  # at most this share of free device memory for the warps' candidate sets
ARENA_INTS = 1 << 27  # deferred level-2 sets: 512 MiB, and 1 GiB for their cost prefixes (_cost_chunks)
# Seed pieces' sources at most (_leading_heavy): their ranges and the joined sets then fill at most
# half the arena, and phase 0's deferrals (walked in place once it is full) keep the rest.
PIECE_ARENA_INTS = ARENA_INTS // 4


# A count's scratch is laid out for rows a little wider than the widest (scratch_width), and phase
# 0's goes back to CuPy's pool before phase 1's is taken (_launch_chunks), so that the pool keeps
# serving one block while batches raise the largest degree a little.  Off: the exact width and
# both phases' scratch held at once; each new batch on a growing RMAT-20 graph then asked the
# device for a new block of gigabytes (phase 1's 3,168 warps of 1.5 MB): from the insertions queued
# to the 4-clique's count launched, 1.90 ms on new RMAT-20 batches against 0.56 on a repeated one
# (timeline.py --pipeline-fresh against --pipeline-flush, session 36, H100; under cProfile, 2.4 ms
# a count in _launch_chunks' cupy.empty).  On: new batches 1.494 ms a batch against 3.058 off, each
# side in a process of its own on one H100 (session 37; per-task counts equal on, off and unsplit,
# session 36).  Interleaved, the on-runs' rounded blocks in the pool serve the off side too.
STABLE_SCRATCH = True
WIDTH_STEP_BITS = 4  # STABLE_SCRATCH's width: a multiple of 2^(bits of the degree - 4), at most 1/8 more


def scratch_width(max_degree: int, memo: bool = False) -> int:
    """The row width a run's scratch is laid out for (match.cu: warp_scratch), at least `max_degree`:
    a memo run's a power of two (at least MEMO_MIN_WIDTH), so that its kept scratch's layout seldom
    changes (`memo_scratch`); another run's, with STABLE_SCRATCH, `max_degree` rounded up to a
    multiple of 2^(bit_length - WIDTH_STEP_BITS), so that its size changes only when the largest
    degree passes such a step."""
    if memo:
        return 1 << (max(max_degree, MEMO_MIN_WIDTH) - 1).bit_length()
    if not STABLE_SCRATCH:
        return max_degree
    step = 1 << max(0, max_degree.bit_length() - WIDTH_STEP_BITS)
    return -(-max_degree // step) * step


def scratch_ints(width: int, k: int, memo_factor: int = 0) -> int:
    """int32 slots one warp's scratch takes (match.cu: warp_scratch); with a memo of memo_factor *
    width keys (0: none), its table (a power of two of at least twice as many keys, and as many
    multiplicities) and a flush's keys, weights, source pointers and pair offsets."""
    slots = (width * max(k - 2, 0) + 1) // 2 * 2
    held = memo_factor * width
    table = 1 << max(1, (2 * held - 1).bit_length())
    return slots + 4 * width + 2 + (2 * table + 6 * held + 2 if memo_factor else 0)


def block_warps(defines: tuple[str, ...] = (), module_name: str = "match.cu") -> int:
    """Warps a block of `module_name`'s kernels: formulas.cu's fixed, the match kernels' those of
    the build that `defines` select (`Balance.warps_per_sm`)."""
    if module_name == "formulas.cu":
        return FORMULA_WARPS_PER_BLOCK
    for define in defines:
        name, _, value = define.partition("=")
        if name == "DM_WARPS_PER_BLOCK":
            return int(value)
    return MATCH_WARPS_PER_BLOCK


def resident_blocks(function: str = "match_tasks", module_name: str = "match.cu", stats: bool = False,
                    defines: tuple[str, ...] = ()) -> int:
    """Blocks (of `block_warps` warps) of a kernel the device holds at once (register-limited
    occupancy), in the build that `stats` and `defines` select (`kernel`): builds differ in
    registers and block size (`Balance.warps_per_sm`)."""
    return _resident_blocks(device_id(), module_name, function, stats, defines)


GRID_BLOCKS_PER_SM = 32  # the most blocks a grid-stride launch takes per SM (its loop covers the rest)


def grid_blocks(items: int, per_block: int = 256) -> int:
    """Blocks of a grid-stride launch over `items`, `per_block` of them a block takes per pass:
    enough for one pass, at least one, at most GRID_BLOCKS_PER_SM per SM of the current device."""
    return max(1, min(-(-items // per_block), GRID_BLOCKS_PER_SM * _sm_count(device_id())))


@functools.cache
def _sm_count(device: int) -> int:
    return int(cupy().cuda.Device(device).attributes["MultiProcessorCount"])


@functools.cache
def _resident_blocks(device: int, module_name: str, function: str, stats: bool,
                     defines: tuple[str, ...]) -> int:
    fn = kernel(module_name, function, stats, defines)
    threads = block_warps(defines, module_name) * 32
    per_sm = max(1, min(65536 // (max(fn.num_regs, 1) * threads), 2048 // threads))
    return per_sm * _sm_count(device)


def free_bytes() -> int:
    """Device memory this process may still allocate: the card's free memory and the pool's cached
    blocks, within CuPy's pool limit (CUPY_GPU_MEMORY_LIMIT: workers sharing a card each keep to
    their share)."""
    cp = cupy()
    pool = cp.get_default_memory_pool()
    free = cp.cuda.Device().mem_info[0] + pool.free_bytes()
    if pool.get_limit():
        free = min(free, pool.get_limit() - pool.total_bytes() + pool.free_bytes())
    return int(free)


def launch_shape(n_tasks: int, per_warp_bytes: int, function: str = "match_tasks",
                 tasks_per_warp: int = 1, fill: bool = False, free: int | None = None, stats: bool = False,
                 defines: tuple[str, ...] = ()) -> Launch:
    """Enough resident warps of `function`'s build (`stats`, `defines`) to fill the device, as many
    as scratch memory allows (`free`: a `free_bytes()` the caller read, else read here); a chunk
    small enough that the queue balances (at least `tasks_per_warp`, what one warp step takes).
    Without `fill`, no more warps than there are tasks; with it (work sharing: warps left without
    a task join the others' pair lists), every resident warp."""
    free = free_bytes() if free is None else free
    per_block = block_warps(defines)
    by_memory = max(1, int(free * SCRATCH_SHARE) // max(per_warp_bytes, 1) // per_block)
    resident = resident_blocks(function, match_unit(function), stats, defines)
    wanted = resident if fill else -(-n_tasks // (per_block * tasks_per_warp))
    blocks = max(1, min(resident, wanted, by_memory))
    warps = blocks * per_block
    chunk = max(1, min(16, n_tasks // (warps * 64 * tasks_per_warp))) * tasks_per_warp
    return Launch(blocks, chunk, per_block)


# A row below this keeps its binary searches (at most 6 probes).  64, not 256: the RMAT-20 4-clique
# 1.08x faster at 1,000 and 1.15x at 10^4, the RMAT-18 house 1.04x, the diamond and 4-cycle even
# (docs/GPU.md, session 26); the budget below still caps how many rows get one.
HUB_MIN_DEGREE = 64
# The most device memory the hub bitmaps take: 16 GiB, so that in practice a tenth of what is free
# (HUB_SHARE) decides; against 256 MiB, batches of 1,000 ran 1.64-1.95x faster on RMAT-22 with
# 8,192-24,576 bitmaps instead of 512 (docs/GPU.md, "Hub bitmaps kept").
HUB_BITMAP_BYTES = 1 << 34
HUB_SHARE = 0.1  # ... and at most this share of what is free


def with_hub_bitmaps(graph: DeviceGraph, min_degree: int | None = None,
                     budget_bytes: int | None = None) -> DeviceGraph:
    """`graph` with bitmaps of its highest-degree rows (degree at least `min_degree`, default
    HUB_MIN_DEGREE; as many as `budget_bytes`, default HUB_BITMAP_BYTES, and HUB_SHARE of free
    memory hold, highest first): an adjacency test against such a row reads one bit where a
    binary search read up to log2(degree) entries.  A bitmap holds a bit per row of `graph`: it
    stays valid while the rows do not grow in number, and while their changes are applied to it
    too (graph.cu: hub_bits_apply, which GpuGraph.apply runs)."""
    cp = cupy()
    min_degree = HUB_MIN_DEGREE if min_degree is None else min_degree
    budget_bytes = HUB_BITMAP_BYTES if budget_bytes is None else budget_bytes
    rows = int(graph.degree.shape[0])
    words = -(-rows // 32)
    most = min(budget_bytes, int(free_bytes() * HUB_SHARE)) // (4 * max(words, 1))
    hubs = cp.flatnonzero(graph.degree >= min_degree).astype(cp.int32)
    # Sorted whether or not the budget cuts: one path, which the warm-up's hub compiles.
    hubs = hubs[cp.argsort(graph.degree[hubs])[::-1][:most]]
    n_hubs = int(hubs.shape[0])
    if n_hubs == 0 or graph.oriented:
        return graph._replace(hub_row=None, hub_bits=None)
    bits = cp.zeros(n_hubs * words, dtype=cp.uint32)
    hub_row = cp.zeros(rows, dtype=cp.uint64)
    kernel("graph.cu", "hub_bitmaps")(
        (grid_blocks(n_hubs, 1),), (256,),
        (np.int32(n_hubs), hubs, graph.offsets, graph.degree, graph.pool, bits, np.int64(words), hub_row))
    return graph._replace(hub_row=hub_row, hub_bits=bits)


HOST_ORDER_MAX_TASKS = 8192  # up to this many, numpy's argsort beats a device sort's launches (74 us, dev VM)


def heavy_first(graph: DeviceGraph, tasks: DeviceTasks):
    """Task order by decreasing min(deg u, deg v), so the longest tasks start first (int64)."""
    cp = cupy()
    cost = cp.minimum(graph.degree[tasks.u], graph.degree[tasks.v])
    return cp.argsort(-cost.astype(cp.int64)).astype(cp.int64)


def host_heavy_first(host_degree: np.ndarray, tasks: TaskList) -> np.ndarray:
    """`heavy_first` on the host, from the degrees the host keeps (ties in task order; int64)."""
    return _heavy_first_order(host_degree, tasks.u, tasks.v)


@njit(cache=True)
def _heavy_first_order(degree, u, v):
    """Tasks by decreasing min(deg u, deg v), ties in task order: a radix sort of the keys
    (most - cost) << b | i, b the bits of the task count (as numpy's stable argsort of the negated
    int32 costs, 26 us for 2,000 tasks on this project's machine, session 30, which it replaced
    inside `_pack_heavy_first`)."""
    n = u.shape[0]
    cost = np.empty(n, dtype=np.int64)
    most = 0
    for i in range(n):
        cost[i] = min(degree[u[i]], degree[v[i]])
        most = max(most, cost[i])
    bits = 1
    while (1 << bits) < n:
        bits += 1
    keys = np.empty(n, dtype=np.int64)
    for i in range(n):
        keys[i] = (most - cost[i]) << bits | i
    sort_keys(keys)
    return keys & ((1 << bits) - 1)


# A short task list's heavy-first order computed and packed with the tasks into the upload's buffer
# in one numba call (_pack_heavy_first); off: host_heavy_first and the upload's own packing.  A
# RMAT-20 4-clique's count at 1,000: 0.624 against 0.702 ms (timeline.py --ab, session 31, H100),
# measured when the off path's order was still numpy's argsort (it now shares _heavy_first_order).
PACKED_TASK_ORDER = True


class TaskOrder(NamedTuple):
    """A host list's heavy-first order on the device (`perm`), and how many tasks at its head get
    their level-2 sets built in pieces (`Balance.seed_pieces`)."""

    perm: Any
    heavy: int


def uploaded_tasks(graph: DeviceGraph, plans: DevicePlans, tasks: TaskList | DeviceTasks,
                   balance: Balance) -> tuple[DeviceTasks, TaskOrder | None]:
    """The tasks on the device and, where they run heavy-first as one part (`_memo_parts`) from a
    short host list over a graph whose degrees the host keeps, their order, uploaded in the tasks'
    copy: a count makes one copy instead of two (None: ordered per part, on the device)."""
    balance = balance.for_pattern(plans.k)
    if (isinstance(tasks, TaskList) and balance.heavy_first and 2 <= tasks.size <= HOST_ORDER_MAX_TASKS
            and graph.host_degree is not None and not _splits_memo(plans, balance)):
        heavy_degree = balance.piece_min_degree if _builds_pieces(plans, balance) else 0
        if not PACKED_TASK_ORDER:
            order = host_heavy_first(graph.host_degree, tasks)
            *arrays, perm = upload(*(a.astype(np.int32, copy=False) for a in tasks), order)
            return DeviceTasks(*arrays), TaskOrder(perm, _leading_heavy(graph.host_degree, tasks.u, tasks.v,
                                                                        order, heavy_degree))
        n, cp = tasks.size, cupy()
        starts = _byte_starts([4 * n] * 4 + [8 * n])
        device, heavy = _uploaded_bytes(starts[-1], lambda host: _pack_heavy_first(
            graph.host_degree, *tasks, host, np.asarray(starts, dtype=np.int64), heavy_degree))
        columns = (device[start : start + 4 * n].view(cp.int32) for start in starts[:4])
        return DeviceTasks(*columns), TaskOrder(device[starts[4] : starts[5]].view(cp.int64), heavy)
    return device_tasks(tasks), None


def _builds_pieces(plans: DevicePlans, balance: Balance) -> bool:
    """Whether a counting run of `plans` under `balance` (for_pattern's) builds heavy tasks' level-2
    sets in pieces (`Balance.seed_pieces`): every task stores its set, deferred, in cost chunks."""
    return (balance.seed_pieces > 0 and balance.piece_min_degree > 0 and balance.split and not balance.chunk
            and plans.walks_level_two)


@njit(cache=True)
def _pack_heavy_first(degree, u, v, rank, plan, packed, starts, heavy_degree):
    """u, v, rank and plan as int32 and `_heavy_first_order` as int64 at `starts` of the uint8
    buffer `packed`; returns `_leading_heavy` of the order."""
    _put_int32(packed, starts[0], u)
    _put_int32(packed, starts[1], v)
    _put_int32(packed, starts[2], rank)
    _put_int32(packed, starts[3], plan)
    order = _heavy_first_order(degree, u, v)
    packed[starts[4] : starts[4] + 8 * u.shape[0]].view(np.int64)[:] = order
    return _leading_heavy(degree, u, v, order, heavy_degree)


@njit(cache=True)
def _leading_heavy(degree, u, v, order, heavy_degree):
    """How many tasks at the head of the heavy-first `order` have min(deg u, deg v) at least
    `heavy_degree` (0 when it is 0), stopping before their rows' max(deg u, deg v), which bounds
    a level-2 source, would pass PIECE_ARENA_INTS."""
    n = 0
    rows = 0
    if heavy_degree > 0:
        while n < order.shape[0]:
            du, dv = degree[u[order[n]]], degree[v[order[n]]]
            rows += max(du, dv)
            if min(du, dv) < heavy_degree or rows > PIECE_ARENA_INTS:
                break
            n += 1
    return n


@njit(cache=True)
def _put_int32(packed, start, column):
    out = packed[start : start + 4 * column.shape[0]].view(np.int32)
    for i in range(column.shape[0]):
        out[i] = column[i]


HOLD_NS = 200_000  # longer than CuPy takes to pack a match launch's arguments (tens of microseconds)


def hold_stream() -> None:
    """Keeps the device busy for HOLD_NS (match.cu: hold), so that an event recorded now fires when
    the launches that follow are queued: timed launches leave out the host's launch overhead, as a
    kernel timer such as G2Miner's does."""
    kernel("match.cu", "hold")((1,), (1,), (np.uint64(HOLD_NS),))


@contextmanager
def kernel_time(stats: KernelStats | None) -> Iterator[None]:
    """Adds the device time of the launches made inside to `stats.kernel_s` (CUDA events behind
    `hold_stream`); does nothing without stats."""
    if stats is None:
        yield
        return
    cp = cupy()
    began, ended = cp.cuda.Event(), cp.cuda.Event()
    hold_stream()
    began.record()
    yield
    ended.record()
    ended.synchronize()
    stats.kernel_s += cp.cuda.get_elapsed_time(began, ended) / 1e3


def _deadline(budget_s: float | None) -> np.uint64:
    """The device's timer `budget_s` from now (0: none), from the host's clock and their offset."""
    if budget_s is None:
        return np.uint64(0)
    return np.uint64(time.monotonic_ns() + _timer_offset_ns(device_id()) + int(budget_s * 1e9))


@functools.cache
def _timer_offset_ns(device: int) -> int:
    """The device's global timer minus the host's monotonic clock, read once per device: a
    deadline then costs no launch and no wait.  The timer kernel is compiled and the device idle
    before the host clock starts, so the read is off by one launch's latency (microseconds;
    budgets are seconds), not by a compile or the launches queued ahead of it."""
    cp = cupy()
    now = cp.zeros(1, dtype=cp.uint64)
    read_timer = kernel("match.cu", "read_timer")
    cp.cuda.Device().synchronize()
    before = time.monotonic_ns()
    read_timer((1,), (1,), (now,))
    device_ns = int(now.get()[0])
    return device_ns - (before + time.monotonic_ns()) // 2


class _Deferred(NamedTuple):
    """Phase 0's deferred tasks: arena entries (task, offset, length), their count and capacity;
    `used` (the arena's fill) and `n` (the entries' count) are words of the run's counters, passed
    by address (`word`)."""

    arena: Any
    used: Any
    task: Any
    off: Any
    length: Any
    n: Any
    cap: int
    defer_cost: int


def _chunks(d: _Deferred, n_deferred: int, chunk: int):
    """Chunk i of the deferred sets: (entry, lo, hi) over that entry's level-2 candidates, `chunk`
    candidates each, run in that order (no order: None)."""
    cp = cupy()
    lens = d.length[:n_deferred].astype(cp.int64)
    per = (lens + chunk - 1) // chunk
    ends = cp.cumsum(per)
    total = int(ends[-1]) if n_deferred else 0
    idx = cp.arange(total, dtype=cp.int64)
    entry = cp.searchsorted(ends, idx, side="right").astype(cp.int64)
    j = idx - (ends - per)[entry]
    lo = (j * chunk).astype(cp.int32)
    hi = cp.minimum(lo.astype(cp.int64) + chunk, lens[entry]).astype(cp.int32)
    return entry, lo, hi, None, total


# Phase 1's chunks ordered on the device by a counting sort of their cost classes (match.cu:
# deferred_chunk_order); off: CuPy's argsort of the classes (58 us of host time for 3,000 keys,
# host_costs.py, session 30).  A RMAT-20 4-clique's count at 1,000: 0.641 against 0.834 ms
# (timeline.py --ab, session 31, H100).
DEVICE_CHUNK_ORDER = True


def _cost_chunks(d: _Deferred, max_sets: int, degree, share: int, counters, by_set: bool = False):
    """The deferred sets (at most `max_sets`; how many, `d.n`, stays on the device) cut into chunks of
    about equal estimated cost (1 + deg(w) per candidate w, or with `by_set` 1 + min(deg(w), the
    set's length): `Balance.cost_by_set`), at least MIN_CHUNK_COST each and `share` in all: (entry,
    lo, hi) per slot, the order that runs them costliest first (by cost class: floor(log2)), and
    the number of slots.  A candidate is never cut, so one that costs more than a chunk is a chunk
    of its own.  Each set's chunks have slots of their own (match.cu: deferred_set_slots), some of
    them empty, max_sets + share + 1 in all (the last always empty), so that every step is queued
    without the host reading a count: phase 1 runs right behind phase 0 and stops at the first
    empty slot of the order.  The run's `counters` get the chunks' number (CHUNKS), their total cost
    (CHUNK_COST) and their number per class.  Four kernels (deferred_set_costs, _set_slots, which
    also places the slots, _slot_chunks, _chunk_order); until session 29 the host waited for phase
    0's counts and then for the number of chunks, until session 30 a CuPy cumsum placed the slots
    and until session 31 a CuPy argsort ordered them (`DEVICE_CHUNK_ORDER`)."""
    cp = cupy()
    threads = 256
    within = cp.empty(d.arena.shape[0], dtype=cp.int64)
    n_sets, total, found = d.n, word(counters, CHUNK_COST), word(counters, CHUNKS)
    kernel("match.cu", "deferred_set_costs")(
        (grid_blocks(max_sets, 1),), (threads,),
        (np.int32(max_sets), n_sets, d.off, d.length, d.arena, degree, np.int32(by_set), within, total))
    slot_end = cp.empty(max_sets, dtype=cp.int64)
    kernel("match.cu", "deferred_set_slots")(
        (1,), (threads,),
        (np.int32(max_sets), n_sets, d.off, d.length, within, total, np.int64(share),
         np.int64(MIN_CHUNK_COST), slot_end))
    n_slots = max_sets + share + 1
    chunk_set = cp.empty(n_slots, dtype=cp.int64)
    lo, hi, chunk_class = (cp.empty(n_slots, dtype=cp.int32) for _ in range(3))
    blocks = grid_blocks(n_slots, threads)
    kernel("match.cu", "deferred_slot_chunks")(
        (blocks,), (threads,),
        (np.int64(n_slots), np.int32(max_sets), n_sets, slot_end, d.off, d.length, within, total,
         np.int64(share), np.int64(MIN_CHUNK_COST), chunk_set, lo, hi, chunk_class,
         word(counters, CHUNK_CLASS_COUNT)))
    if not DEVICE_CHUNK_ORDER:
        counters[CHUNKS] = (chunk_class >= 0).sum()
        return chunk_set, lo, hi, cp.argsort(-chunk_class), n_slots
    order = cp.empty(n_slots, dtype=cp.int64)
    kernel("match.cu", "deferred_chunk_order")(
        (blocks,), (threads,),
        (np.int64(n_slots), chunk_class, word(counters, CHUNK_CLASS_COUNT),
         word(counters, CHUNK_CLASS_CURSOR), found, order))
    return chunk_set, lo, hi, order, n_slots


@dataclass
class _MatchRun:
    """The arguments match_tasks keeps over a run's launches (phase 0, then phase 1)."""

    graph: DeviceGraph
    plans: DevicePlans
    tasks: DeviceTasks
    batch: DeviceBatch
    check_other: bool
    counts: Any
    out: Any
    out_offsets: Any
    expect: Any
    window: tuple[int, int]
    balance: Balance
    stats: KernelStats | None
    deadline: np.uint64
    width: int
    scratch: Any
    deferred: _Deferred
    counters: Any  # uint64[COUNTERS], zeroed: the run's total, flags and queues
    # The fixed arguments' runs of DM_MATCH_PARAMS and the build's defines (__post_init__).
    _graph_plans: tuple = field(init=False, repr=False)
    _batch_outputs: tuple = field(init=False, repr=False)
    _arena: tuple = field(init=False, repr=False)
    _deadline_flags: tuple = field(init=False, repr=False)
    _kept: tuple = field(init=False, repr=False)
    _defines: tuple = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # The arguments that stay the same over the run's launches, in DM_MATCH_PARAMS' order around
        # those that change, assembled once: a match launch took 44 us of host time with all 71
        # assembled each time, of which CuPy's launch is 8.4 (timeline.py --step-clock and
        # host_costs.py, session 35, H100; the time with this change is not measured apart yet).
        g, p, b, d = self.graph, self.plans, self.batch, self.deferred
        self._graph_plans = (g.offsets, g.degree, g.pool,
                             p.order, p.conn, p.lt, p.gt, p.dep, p.base, p.last_two,
                             np.int32(p.k), np.int32(p.induced), np.int32(g.oriented),
                             np.int32(self.balance.unroll_limit()),
                             self.tasks.u, self.tasks.v, _ptr(self.tasks.rank), _ptr(self.tasks.plan))
        self._batch_outputs = (
            b.slot, b.ptr, b.partner, b.rank, _ptr(b.pair_keys), _ptr(b.pair_rank), np.int32(b.pair_bits),
            _ptr(b.pair_filter if self.balance.pair_filter else None), np.int32(b.filter_bits),
            np.int32(b.removals),
            p.iso_masks, np.int32(p.iso_masks.shape[0] if p.induced else 0),
            np.int32(bool(self.check_other)),
            _ptr(self.counts), word(self.counters, TOTAL),
            _ptr(self.out), _ptr(self.out_offsets), _ptr(self.expect),
            np.int64(self.window[0]), np.int64(self.window[1]))
        self._arena = (np.int64(self.width),
                       d.arena, np.int64(d.arena.shape[0] if d.cap else 0), d.used, np.int64(d.defer_cost),
                       d.task, d.off, d.length, d.n, np.int64(d.cap))
        self._deadline_flags = (self.deadline, word(self.counters, FLAGS))
        self._kept = (_ptr(g.hub_row),
                      _ptr(p.kept_j if g.tt_keys is not None else None), _ptr(g.tt_keys), _ptr(g.tt_t),
                      np.int32(g.tt_bits))
        self._defines = _match_defines(self.balance, b)

    def shape(self, n_items: int, per_warp_bytes: int, function: str, free: int | None = None) -> Launch:
        """`launch_shape` of a launch of this run's build of `function`."""
        return launch_shape(n_items, per_warp_bytes, function, free=free, stats=self.stats is not None,
                            defines=self._defines)

    def launch(self, function: str, phase: int, first: int, last: int, perm, shape: Launch,
               chunks=None, pieces: int = 0) -> None:
        cp = cupy()
        counters = self.counters
        shared = function in SHARING_KERNELS
        board = cp.zeros(shape.warps * BOARD_WORDS, dtype=cp.uint64) if shared else None
        raw = cp.zeros(len(STAT_NAMES), dtype=cp.uint64) if self.stats is not None else None
        busy = cp.zeros(shape.warps, dtype=cp.uint64) if self.stats is not None else None
        entry, lo, hi = chunks if chunks is not None else (None, None, None)
        args = (*self._graph_plans, _ptr(perm),
                np.int32(phase), np.int64(first), np.int64(last),
                *self._batch_outputs, self.scratch, *self._arena,
                _ptr(entry), _ptr(lo), _ptr(hi),
                word(counters, PIECE_QUEUE if phase == PIECES_PHASE else QUEUE + phase),
                np.int32(shape.chunk), _ptr(raw), _ptr(busy), *self._deadline_flags,
                _ptr(board), np.int64(self.balance.share_pairs if shared else 0),
                word(counters, ACTIVE + (phase if phase != PIECES_PHASE else 0)),  # (unused there)
                *self._kept, np.int32(pieces))
        match = kernel(match_unit(function), function, stats=self.stats is not None, defines=self._defines)
        if self.stats is None:
            match((shape.blocks,), (shape.threads,), args)
            return
        with kernel_time(self.stats):
            match((shape.blocks,), (shape.threads,), args)
        self.stats.add(raw.get(), busy.get())


def _match_defines(balance: Balance, batch: DeviceBatch) -> tuple[str, ...]:
    """The defines of the match build a run under `balance` launches for `batch`."""
    return balance.defines(pair_table=batch.pair_keys is not None)


class _Started(NamedTuple):
    """A run whose launches are queued (start_match), and what finish_match needs of it."""

    run: _MatchRun
    function: str
    shape: Launch
    per_warp: int
    defer: bool
    memo: bool
    budget_s: float | None


def run_match(graph: DeviceGraph, plans: DevicePlans, tasks: DeviceTasks, batch: DeviceBatch,
              check_other: bool, *, counts=None, first: int = 0, last: int | None = None, perm=None,
              out=None, out_offsets=None, expect=None, window: tuple[int, int] = (0, 0),
              balance: Balance = Balance(), stats: KernelStats | None = None,
              budget_s: float | None = None, memo: bool = False) -> int:
    """match_tasks over tasks [first, last) (phase 0), then over the chunks of the tasks it deferred
    (phase 1, counting only); returns the matches found.  `memo`: the tasks are all of memo plans,
    counted by match_memo (`Balance.last_memo`).

    Raises DeadlineExceeded when `budget_s` ran out, EngineError when a listing disagrees with
    `expect`.
    """
    started = start_match(graph, plans, tasks, batch, check_other, counts=counts, first=first, last=last,
                          perm=perm, out=out, out_offsets=out_offsets, expect=expect, window=window,
                          balance=balance, stats=stats, budget_s=budget_s, memo=memo)
    return 0 if started is None else finish_match(started)


def start_match(graph: DeviceGraph, plans: DevicePlans, tasks: DeviceTasks, batch: DeviceBatch,
                check_other: bool, *, counts=None, first: int = 0, last: int | None = None, perm=None,
                out=None, out_offsets=None, expect=None, window: tuple[int, int] = (0, 0),
                balance: Balance = Balance(), stats: KernelStats | None = None,
                budget_s: float | None = None, memo: bool = False, heavy: int = 0) -> _Started | None:
    """run_match's launches, queued on the current stream without waiting for them (None: no
    tasks): phase 0 and, with chunks of equal cost, the steps that cut the deferred sets and phase 1
    right behind it; finish_match waits for them (and with `Balance.chunk` runs phase 1).  `heavy`:
    the first tasks of `perm` whose level-2 sets are built in pieces before phase 0, which skips
    them (`Balance.seed_pieces`; the caller's `TaskOrder`, counting from `first` 0 only)."""
    cp = cupy()
    if batch.removals and plans.induced:
        raise ValueError("a joint count (DeviceBatch.joint) is for edge-induced plans")
    last = tasks.size if last is None else last
    n = last - first
    if n <= 0:
        return None
    balance = balance.for_pattern(plans.k)
    if graph.max_degree is not None:
        widest = graph.max_degree
    else:
        widest = int(graph.degree.max()) if graph.degree.shape[0] else 1
    width = scratch_width(max(1, widest), memo)
    per_warp = scratch_ints(width, plans.k, balance.memo_factor if memo else 0)
    if out is None and balance.seed_swap and plans.swaps:
        tasks = swapped_seeds(graph, plans, tasks)
    flat = plans.k == 3 and balance.unroll and out is None
    shared = (plans.k >= 4 and balance.unroll and balance.steal and out is None
              and (balance.memo_share or not memo))
    function = "match_flat" if flat else ("match_shared" if shared else "match_tasks")
    if memo:
        function = "match_memo_shared" if shared else "match_memo"
    free = free_bytes()
    shape = launch_shape(n, 4 * per_warp, function, 32 if flat else 1, fill=shared and balance.fill,
                         free=free, stats=stats is not None, defines=_match_defines(balance, batch))
    defer = balance.split and out is None and plans.k >= 4 and (balance.memo_chunks > 0 or not memo)
    counters = cp.zeros(COUNTERS, dtype=cp.uint64)
    scratch = memo_scratch(shape.warps, per_warp) if memo else cp.empty(shape.warps * per_warp, cp.int32)
    run = _MatchRun(graph, plans, tasks, batch, check_other, counts, out, out_offsets, expect, window,
                    balance, stats, _deadline(budget_s), width, scratch,
                    _deferred_buffers(balance.defer_cost if defer else 0, counters), counters)
    heavy = heavy if defer and first == 0 and not balance.chunk and not memo else 0
    if heavy:
        _launch_pieces(run, heavy, perm, free)
        if stats is not None:
            stats.pieced += heavy
    run.launch(function, 0, first + heavy, last, perm, shape)
    started = _Started(run, function, shape, per_warp, defer, memo, budget_s)
    if defer and not balance.chunk:
        share = (balance.memo_chunks if memo else AUTO_CHUNK_SHARE) * shape.warps
        chunks = _cost_chunks(run.deferred, min(n, run.deferred.cap), graph.degree, share, counters,
                              balance.cost_by_set and plans.set_bounded)
        _launch_chunks(started, *chunks)
    return started


def _launch_pieces(run: _MatchRun, heavy: int, perm, free: int) -> None:
    """The level-2 sets of the first `heavy` tasks of `perm` built in `Balance.seed_pieces` pieces
    each (match.cu: match_pieces, which writes its pieces' records at the top of the record list)
    and joined into one deferred set each (gather_pieces), queued before phase 0.  `free`: the
    count's `free_bytes()` (the pieces take no scratch, so phase 0's does not change their shape)."""
    pieces = run.balance.seed_pieces
    n_pieces = heavy * pieces  # at most HOST_ORDER_MAX_TASKS * 32: records to spare above phase 0's
    # No scratch: a piece builds its range straight into the arena.
    run.launch("match_pieces", PIECES_PHASE, 0, n_pieces, perm, run.shape(n_pieces, 4, "match_pieces", free),
               pieces=pieces)
    d = run.deferred
    kernel("match.cu", "gather_pieces")(
        (grid_blocks(32 * heavy),), (256,),
        (np.int64(heavy), np.int32(pieces), d.task, d.off, d.length, d.n, np.int64(d.cap), d.arena,
         np.int64(d.arena.shape[0]), d.used, word(run.counters, FLAGS)))


def _launch_chunks(started: _Started, entry, lo, hi, order, n_chunks: int) -> None:
    """Phase 1 of a started run over its deferred sets' chunks, in `order`."""
    run = started.run
    # The chunks get a launch of their own size: phase 0 of a small batch may have had few warps.
    per_warp = started.per_warp
    grab = run.shape(n_chunks, 4 * per_warp, started.function)
    if grab.warps > started.shape.warps:
        if STABLE_SCRATCH and not started.memo:
            # Phase 0's scratch back to the pool first (stream-ordered: phase 1 runs after phase 0
            # on this stream), so that phase 1's is cut from the same block, not a second one.
            run.scratch = None
        run.scratch = (memo_scratch(grab.warps, per_warp) if started.memo
                       else cupy().empty(grab.warps * per_warp, dtype=cupy().int32))
    run.launch(started.function, 1, 0, n_chunks, order, grab, (entry, lo, hi))


# A count with device work queued behind it before the host waits (`count_tasks`' `then`: a joint
# batch's deletions) has its counters and per-task counts copied to pinned host memory right behind
# its launches, and the host waits for those copies, not for the work `then` queued after them: the
# batch's results come back while the deletions' update still runs.  Off: the reads wait for it too.
READ_AHEAD = True


class _ReadAhead(NamedTuple):
    """A run's counters and per-task counts on their way to pinned host memory (`read_ahead`)."""

    counters: np.ndarray
    counts: np.ndarray | None
    copied: Any  # the CUDA event recorded behind both copies


def read_ahead(counters, counts=None) -> _ReadAhead:
    """Copies of `counters` and `counts` (device arrays; counts optional) into pinned host memory,
    queued on the current stream with an event behind them; valid once `copied` has happened."""
    cp = cupy()
    stream = cp.cuda.get_current_stream()
    host = []
    for array in (counters, counts):
        if array is None:
            host.append(None)
            continue
        pinned = cp.cuda.alloc_pinned_memory(max(array.nbytes, 1))
        host.append(np.ndarray(array.shape, dtype=array.dtype, buffer=pinned))
        if array.nbytes:
            cp.cuda.runtime.memcpyAsync(host[-1].ctypes.data, array.data.ptr, array.nbytes,
                                        cp.cuda.runtime.memcpyDeviceToHost, stream.ptr)
    return _ReadAhead(host[0], host[1], stream.record())


def finish_match(started: _Started, ahead: _ReadAhead | None = None) -> int:
    """Waits for a started run, launching the fixed-size chunks of the tasks it deferred (phase 1
    with `Balance.chunk`: the cost chunks were queued by start_match), and returns the run's matches
    (run_match's errors).  `ahead`: the run's counters read ahead (`read_ahead`, for a run without
    fixed-size chunks), waited for instead of the stream."""
    run, balance = started.run, started.run.balance
    if ahead is not None:
        ahead.copied.synchronize()
        got = ahead.counters
    else:
        got = run.counters.get()  # the total and flags too
    n_chunks = int(got[CHUNKS])  # the cost chunks start_match queued
    n_deferred = min(int(got[DEFERRED]), run.deferred.cap) if started.defer and balance.chunk else 0
    if n_deferred:
        fixed = _chunks(run.deferred, n_deferred, balance.chunk)
        _launch_chunks(started, *fixed)
        n_chunks = fixed[-1]
        got = run.counters.get()
    if run.stats is not None:
        run.stats.chunks += n_chunks
    if got[FLAGS] & 2:
        raise DeadlineExceeded(f"match_tasks stopped after {started.budget_s} s")
    if got[FLAGS] & 1:
        raise EngineError("a listing round found a different number of matches than its count")
    if got[FLAGS] & 4:
        raise EngineError("the deferred sets' arena had no room for a task's seed pieces")
    return int(got[TOTAL])


# Per device, the scratch of memo runs and its per-warp size (memo_scratch).
_MEMO_SCRATCH: dict[int, tuple[int, Any]] = {}


def memo_scratch(warps: int, per_warp: int):
    """Scratch of a match_memo launch: zeroed when allocated and then kept for launches of the same
    per-warp layout, since every memo task leaves its warp's table empty (match.cu: memo_flush), so
    that no launch clears tables of many megabytes a warp."""
    cp = cupy()
    device = device_id()
    layout, held = _MEMO_SCRATCH.get(device, (0, None))
    if layout != per_warp or held.shape[0] < warps * per_warp:
        _MEMO_SCRATCH.pop(device, None)
        del held  # freed first: the new one may need its room
        held = cp.zeros(warps * per_warp, dtype=cp.int32)
        _MEMO_SCRATCH[device] = (per_warp, held)
    return held


def swapped_seeds(graph: DeviceGraph, plans: DevicePlans, tasks: DeviceTasks) -> DeviceTasks:
    """The tasks with each seed (u, v) run as (v, u) where `PlanTable.seed_swap` puts the
    lower-degree endpoint at the position level 2 iterates (match.cu: swap_seeds), for counting
    only: a listing keeps the CPU engine's row order."""
    cp = cupy()
    n = tasks.size
    u, v = cp.empty(n, dtype=cp.int32), cp.empty(n, dtype=cp.int32)
    if n:
        kernel("match.cu", "swap_seeds")(
            (grid_blocks(n),), (256,),
            (np.int64(n), tasks.u, tasks.v, _ptr(tasks.plan), plans.seed_swap, graph.degree, u, v))
    return tasks._replace(u=u, v=v)


def _deferred_buffers(defer_cost: int, counters) -> _Deferred:
    """The arena and records of deferred tasks (placeholders when deferral is off); the arena's fill
    and the record count are slots of the run's zeroed `counters`."""
    cp = cupy()
    used, n = word(counters, ARENA_USED), word(counters, DEFERRED)
    if defer_cost <= 0:
        i64, i32 = cp.empty(1, cp.int64), cp.empty(1, cp.int32)
        return _Deferred(i32, used, i64, i64, i32, n, 0, 0)
    cap = ARENA_INTS // 64
    return _Deferred(cp.empty(ARENA_INTS, dtype=cp.int32), used, cp.empty(cap, dtype=cp.int64),
                     cp.empty(cap, dtype=cp.int64), cp.empty(cap, dtype=cp.int32), n, cap, defer_cost)


def _order(graph: DeviceGraph, tasks: DeviceTasks, balance: Balance):
    if not balance.heavy_first or tasks.size < 2:
        return None
    return heavy_first(graph, tasks)


def _splits_memo(plans: DevicePlans, balance: Balance) -> bool:
    """Whether a count under `balance` (for_pattern's) runs the tasks of memo plans apart."""
    return balance.last_memo and balance.unroll and plans.memos


def _memo_parts(plans: DevicePlans, tasks: DeviceTasks, balance: Balance) -> list[tuple[Any, bool]]:
    """The tasks' indices (None: all of them) each counting launch takes, and whether it is the memo's
    (`Balance.last_memo`: the tasks of memo plans apart from the rest, first)."""
    if not (_splits_memo(plans, balance) and tasks.plan is not None):
        return [(None, False)]
    cp = cupy()
    memo = plans.memo[tasks.plan] != 0
    return [(cp.flatnonzero(memo), True), (cp.flatnonzero(~memo), False)]


def _take(tasks: DeviceTasks, index) -> DeviceTasks:
    return DeviceTasks(*(None if a is None else a[index] for a in tasks))


# Per device, the stream memo runs take with Balance.memo_overlap (memo_stream).
_MEMO_STREAMS: dict[int, Any] = {}


def memo_stream():
    """The current device's stream for memo runs beside the rest (`Balance.memo_overlap`); it does
    not wait for the legacy default stream, so the caller orders it by events."""
    cp = cupy()
    device = device_id()
    if device not in _MEMO_STREAMS:
        _MEMO_STREAMS[device] = cp.cuda.Stream(non_blocking=True)
    return _MEMO_STREAMS[device]


def _count_parts(g: DeviceGraph, p: DevicePlans, t: DeviceTasks, b: DeviceBatch, check_other: bool, counts,
                 order, balance: Balance, stats: KernelStats | None, budget_s: float | None,
                 then: Callable[[], None] | None = None) -> tuple[int, np.ndarray | None]:
    """run_match over the tasks, the memo plans' in a launch of their own (`_memo_parts`): first,
    or with `Balance.memo_overlap` queued on a stream of its own and finished after the rest; fills
    `counts` (optional) per task.  Returns the total, and `counts` on the host where they were read
    ahead of `then`'s work (READ_AHEAD), else None.  `order`: the whole list's heavy-first order
    when it runs as one part (`uploaded_tasks`; None: each part ordered on the device).  `then`
    (count_tasks) runs once, before the wait for the last launches where none follows them on the
    current stream, else after every wait."""
    cp = cupy()
    main = cp.cuda.get_current_stream()
    balance = balance.for_pattern(p.k)
    total = 0
    ahead = None
    beside = None  # the memo's run on its own stream, with what it reads, until it is finished
    pending = [then] if then is not None else []
    parts = _memo_parts(p, t, balance)
    try:
        for i, (index, memo) in enumerate(parts):
            part, part_counts = t, counts
            if index is not None:
                part = _take(t, index)
                part_counts = None if counts is None else cp.zeros(part.size, dtype=cp.int64)
            if part.size == 0:
                continue
            host_order = order if index is None else None
            perm = host_order.perm if host_order is not None else _order(g, part, balance)
            heavy = host_order.heavy if host_order is not None and not memo else 0
            if memo and balance.memo_overlap:
                stream = memo_stream()
                stream.wait_event(main.record())  # the part, its counts and order come from the main stream
                with stream:
                    run = start_match(g, p, part, b, check_other, counts=part_counts, perm=perm,
                                      balance=balance, stats=stats, budget_s=budget_s, memo=True)
                # Held until finished: freed earlier, their memory could be reused on the main stream
                # while the memo's stream still reads it.
                beside = (index, part_counts, stream, run, part, perm)
                continue
            started = start_match(g, p, part, b, check_other, counts=part_counts, perm=perm, balance=balance,
                                  stats=stats, budget_s=budget_s, memo=memo, heavy=heavy)
            # Fixed chunks launch after the wait, and a memo's stream does not order behind `then`'s work.
            if pending and i == len(parts) - 1 and beside is None and not (started.defer and balance.chunk):
                if READ_AHEAD and index is None:
                    ahead = read_ahead(started.run.counters, counts)
                pending.pop()()
            total += finish_match(started, ahead)
            if index is not None and counts is not None:
                counts[index] = part_counts
        if beside is not None:
            index, part_counts, stream, run, _, _ = beside
            with stream:
                total += 0 if run is None else finish_match(run)
            if counts is not None:
                counts[index] = part_counts
        if pending:
            pending.pop()()
    finally:  # a run that raised leaves the memo's launch running on the arrays held above
        if beside is not None:
            beside[2].synchronize()
        if ahead is not None:  # (`then` raised): its copies land before their pinned memory is freed
            ahead.copied.synchronize()
    # A copy: the pinned buffer goes back to CuPy's pool.
    return total, None if ahead is None or ahead.counts is None else ahead.counts.copy()


def count_tasks(graph: GraphView | DeviceGraph, plans: PlanTable | DevicePlans, tasks: TaskList | DeviceTasks,
                batch: BatchView | DeviceBatch, check_other: bool = False, *, balance: Balance = Balance(),
                stats: KernelStats | None = None, budget_s: float | None = None,
                then: Callable[[], None] | None = None) -> np.ndarray:
    """Matches found by each task (int64[T], host): the CPU engine's `count_tasks`.  `then`, when
    given, runs once on the host after the count's launches are queued and, where it can, before
    the host waits for them: device work it queues on the current stream runs after them (a joint
    batch's deletions, `GraphReplica.execute`), and its host time overlaps theirs; with READ_AHEAD
    the counts return without waiting for that work."""
    g, p = device_graph(graph), _plans(plans)
    t, order = uploaded_tasks(g, p, tasks, balance)
    counts = cupy().zeros(t.size, dtype=cupy().int64)
    _, read = _count_parts(g, p, t, device_batch(batch), check_other, counts, order, balance, stats, budget_s,
                           then)
    return counts.get() if read is None else read


def count_total(graph: GraphView | DeviceGraph, plans: PlanTable | DevicePlans, tasks: TaskList | DeviceTasks,
                batch: BatchView | DeviceBatch, check_other: bool = False, *, balance: Balance = Balance(),
                stats: KernelStats | None = None, budget_s: float | None = None) -> int:
    """The sum of `count_tasks` without per-task counts (static counting)."""
    g, p = device_graph(graph), _plans(plans)
    t, order = uploaded_tasks(g, p, tasks, balance)
    return _count_parts(g, p, t, device_batch(batch), check_other, None, order, balance, stats, budget_s)[0]


def list_tasks(graph: GraphView | DeviceGraph, plans: PlanTable | DevicePlans, tasks: TaskList | DeviceTasks,
               batch: BatchView | DeviceBatch, counts: np.ndarray, check_other: bool = False,
               limit: int | None = None, *, buffer_bytes: int = LIST_BUFFER_BYTES) -> np.ndarray:
    """The matches of each task as rows (pattern-vertex order, internal ids): the CPU engine's
    `list_tasks`, its `limit` included (the first `limit` rows; tasks past them are not run).
    Rows are written into a device buffer of `buffer_bytes` in rounds; a task whose rows
    straddle two rounds is re-run and writes only its share of each."""
    cp = cupy()
    g, p, t, b = device_graph(graph), _plans(plans), device_tasks(tasks), device_batch(batch)
    counts = np.asarray(counts, dtype=np.int64)
    ends = np.cumsum(counts)
    starts = ends - counts
    n_rows = int(ends[-1]) if counts.shape[0] else 0
    if limit is not None:
        n_rows = min(n_rows, limit)
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


def edge_ends(graph: DeviceGraph, num_vertices: int):
    """(src, dst) of every entry of the rows of vertices 0 .. num_vertices-1, in row order (int64)."""
    cp = cupy()
    deg = graph.degree[:num_vertices].astype(cp.int64)
    row_end = cp.cumsum(deg)
    total = int(row_end[-1]) if num_vertices else 0
    item = cp.arange(total, dtype=cp.int64)
    src = cp.searchsorted(row_end, item, side="right")
    return src, graph.pool[graph.offsets[src] + item - (row_end - deg)[src]].astype(cp.int64)


def static_tasks(graph: DeviceGraph, num_vertices: int, plans: PlanTable | DevicePlans) -> DeviceTasks:
    """TaskList.static of the device graph's edges, built on the device, minus the orientations
    that plan 0's seed constraint rejects anyway (same counts, half the tasks)."""
    cp = cupy()
    p = _plans(plans)
    src, dst = edge_ends(graph, num_vertices)
    lt, gt = (int(x) for x in cp.stack([p.lt[1], p.gt[1]]).get())
    if lt & 1:
        keep = dst < src
        src, dst = src[keep], dst[keep]
    elif gt & 1:
        keep = dst > src
        src, dst = src[keep], dst[keep]
    return DeviceTasks(src.astype(cp.int32), dst.astype(cp.int32), None, None)


def _degree_order(graph: DeviceGraph, num_vertices: int):
    """The ids ascending in degree, ties by id: entry r is the vertex of id r in the degree
    relabelling."""
    cp = cupy()
    deg = graph.degree[:num_vertices].astype(cp.int64)
    return cp.argsort(deg * num_vertices + cp.arange(num_vertices, dtype=cp.int64))


def _ranked_pairs(graph: DeviceGraph, num_vertices: int):
    """The key rank[src] << 32 | rank[dst] of every directed pair of the graph (unsorted), rank[v]
    being v's id in the degree relabelling (ids ascending in degree, ties by id)."""
    cp = cupy()
    rank = cp.empty(num_vertices, dtype=cp.int64)
    rank[_degree_order(graph, num_vertices)] = cp.arange(num_vertices, dtype=cp.int64)
    src, dst = edge_ends(graph, num_vertices)
    return (rank[src] << 32) | rank[dst]


def _csr(key, num_vertices: int, oriented: bool) -> DeviceGraph:
    """The slack-free CSR of sorted pair keys (src << 32 | dst)."""
    cp = cupy()
    key.sort()
    src = key >> 32
    new_deg = cp.bincount(src, minlength=num_vertices).astype(cp.int32)
    offsets = cp.cumsum(new_deg, dtype=cp.int64) - new_deg
    return DeviceGraph(offsets, new_deg, (key & 0xFFFFFFFF).astype(cp.int32), oriented)


def degree_ordered(graph: DeviceGraph, num_vertices: int) -> DeviceGraph:
    """The same graph relabelled so that ids ascend with degree (ties by id), as a slack-free
    CSR.  Counts are label-independent, so a static count may run on it: with ids in degree
    order the symmetry bounds (later positions hold larger ids) leave a hub only its few
    higher-degree neighbours to scan, the usual degree orientation of static counting."""
    return _csr(_ranked_pairs(graph, num_vertices), num_vertices, False)


def degree_oriented(graph: DeviceGraph, num_vertices: int) -> DeviceGraph:
    """`degree_ordered` keeping in row v only the neighbours of higher id (G2Miner's degree
    orientation, a DAG): every edge once, rows of at most about sqrt(2m) entries."""
    key = _ranked_pairs(graph, num_vertices)
    return _csr(key[(key >> 32) < (key & 0xFFFFFFFF)], num_vertices, True)


def orientable(plans: PlanTable) -> bool:
    """Whether the (static, one-plan) table may run on the oriented graph: a clique whose every
    position must hold a larger id than all earlier ones, so that every candidate lies in the
    oriented row of each matched neighbour."""
    k = plans.k
    if plans.order.shape[0] != 1:
        return False
    lower = np.tril(np.ones((k, k), dtype=bool), -1)
    return bool(np.all(plans.conn[0][lower] == 1) and np.all(plans.cmp[0][lower] == 1))


def diamond_formula(plans: PlanTable) -> bool:
    """Whether the (static, one-plan) table counts edge-induced diamonds, which the sum over edges
    of C(t, 2) counts (`edge_triangles`, `pair_sum`)."""
    return plans.order.shape[0] == 1 and is_edge_induced_diamond(plans)


def _oriented_triangles(function: str, oriented: DeviceGraph, src, tri, part: int, parts: int,
                        stats: KernelStats | None) -> int:
    """Runs formulas.cu's `function` (edge_triangles or triangles) over the oriented edges
    part::parts, edge e being pool slot e from src[e]; returns the count it summed (triangles)."""
    cp = cupy()
    n_edges = int(oriented.pool.shape[0])
    total = cp.zeros(1, dtype=cp.uint64)
    if n_edges > part:
        queue = cp.zeros(1, dtype=cp.uint64)
        blocks = min(resident_blocks(function, "formulas.cu"), -(-(n_edges // parts + 1) // 256))
        args = (oriented.offsets, oriented.degree, oriented.pool, src, np.int64(n_edges), np.int64(part),
                np.int64(parts), queue, tri, total)
        with kernel_time(stats):
            kernel("formulas.cu", function)((blocks,), (256,), args)
    return int(total.get()[0])


def edge_triangles(oriented: DeviceGraph, src, stats: KernelStats | None = None) -> Any:
    """uint32 triangles through every edge of the oriented graph, edge e being pool slot e from
    src[e] (formulas.cu: edge_triangles)."""
    cp = cupy()
    n_edges = int(oriented.pool.shape[0])
    tri = cp.zeros(max(n_edges, 1), dtype=cp.uint32)
    _oriented_triangles("edge_triangles", oriented, src, tri, 0, 1, stats)
    return tri[:n_edges]


def edge_triangle_counts(graph: DeviceGraph, num_vertices: int) -> tuple[Any, Any, Any]:
    """(a, b, t): every edge of `graph` once, its ends in the graph's own ids (int32), with the
    triangles through it (uint32): `edge_triangles` on the degree-oriented graph, mapped back."""
    cp = cupy()
    oriented, src = _oriented_edges(graph, num_vertices)
    t = edge_triangles(oriented, src)
    vertex = _degree_order(graph, num_vertices).astype(cp.int32)
    return vertex[src], vertex[oriented.pool], t


def triangles(oriented: DeviceGraph, src, part: int = 0, parts: int = 1,
              stats: KernelStats | None = None) -> int:
    """The triangles of the oriented graph whose lowest edge is one of edges part::parts (edge e:
    pool slot e, from src[e]; formulas.cu: triangles)."""
    cp = cupy()
    return _oriented_triangles("triangles", oriented, src, cp.zeros(1, dtype=cp.uint32), part, parts, stats)


def cycle_formula(plans: PlanTable) -> bool:
    """Whether the (static, one-plan) table counts edge-induced 4-cycles, which `four_cycles`
    counts by formula."""
    return plans.order.shape[0] == 1 and is_edge_induced_four_cycle(plans)


CYCLE_ITEMS_PER_BLOCK = 4  # four_cycles: a hub's wedges are cut so that each block gets about this many items
MIN_CYCLE_ITEM_COST = 4096  # ... but no item of fewer estimated wedges than this


def four_cycles(ordered: DeviceGraph, num_vertices: int, part: int = 0, parts: int = 1,
                min_item_cost: int = MIN_CYCLE_ITEM_COST, stats: KernelStats | None = None) -> int:
    """The edge-induced 4-cycles whose highest vertex u is one of part::parts of the degree-ordered
    graph (formulas.cu: four_cycles).  A vertex's wedges are estimated as the sum of deg(v) over its
    lower neighbours v; a costly vertex is cut into items by ranges of w (of at least
    `min_item_cost` wedges), costliest first."""
    return _cycle_wedges("four_cycles", ordered, num_vertices, None, part, parts, min_item_cost, stats)


def house_wedges(ordered: DeviceGraph, num_vertices: int, slot_triangles, part: int = 0, parts: int = 1,
                 min_item_cost: int = MIN_CYCLE_ITEM_COST, stats: KernelStats | None = None) -> int:
    """Over the wedges of `four_cycles`, the sum of (c(u, w) - 1) * (t(u, v) + t(v, w)), t the
    triangles through each slot of `ordered` (`ordered_triangles`): the sum over edges of t(e)
    times the 4-cycles through e, for the cycles whose top vertex is one of part::parts
    (formulas.cu: house_wedges)."""
    return _cycle_wedges("house_wedges", ordered, num_vertices, slot_triangles, part, parts, min_item_cost,
                         stats)


def _cycle_wedges(function: str, ordered: DeviceGraph, num_vertices: int, slot_triangles, part: int,
                  parts: int, min_item_cost: int, stats: KernelStats | None) -> int:
    """One launch of formulas.cu's `function` (four_cycles, house_wedges) over the work items of
    `four_cycles`'s docstring."""
    cp = cupy()
    n = num_vertices
    src, dst = edge_ends(ordered, n)
    lower = dst < src
    cost = cp.bincount(src[lower], weights=ordered.degree[dst[lower]].astype(cp.float64), minlength=n)
    us = cp.arange(part, n, parts, dtype=cp.int64)
    us = us[cost[us] > 0]
    if us.shape[0] == 0:
        return 0
    fn = kernel("formulas.cu", function)
    by_memory = int(free_bytes() * SCRATCH_SHARE) // (4 * max(n, 1))
    blocks = max(1, min(resident_blocks(function, "formulas.cu"), by_memory))
    target = max(min_item_cost, float(cost[us].sum()) / (blocks * CYCLE_ITEMS_PER_BLOCK))
    pieces = cp.minimum(cp.ceil(cost[us] / target), us).astype(cp.int64)  # at most u ids below u
    ends = cp.cumsum(pieces)
    n_items = int(ends[-1])
    at = cp.arange(n_items, dtype=cp.int64)
    owner = cp.searchsorted(ends, at, side="right")
    u = us[owner]
    j = at - (ends - pieces)[owner]
    p = pieces[owner]
    lo, hi = u * j // p, u * (j + 1) // p
    order = cp.argsort(-(cost[u] / p))
    wedges = cp.zeros(blocks * n, dtype=cp.uint32)
    queue, total = cp.zeros(1, dtype=cp.uint64), cp.zeros(1, dtype=cp.uint64)
    args = (ordered.offsets, ordered.degree, ordered.pool, _ptr(slot_triangles), u[order].astype(cp.int32),
            lo[order].astype(cp.int32), hi[order].astype(cp.int32), np.int64(n_items), np.int64(n), queue,
            wedges, total)
    with kernel_time(stats):
        fn((blocks,), (256,), args)
    return int(total.get()[0])


def ordered_triangles(ordered: DeviceGraph, oriented: DeviceGraph, src, edge_tri,
                      stats: KernelStats | None = None):
    """The triangles through each slot of `ordered` (uint32, both slots of an edge alike) from
    `edge_triangles` of `oriented` (its edges' sources `src`), the two over one relabelling
    (formulas.cu: ordered_triangles)."""
    cp = cupy()
    t = cp.zeros(ordered.pool.shape[0], dtype=cp.uint32)
    n_edges = int(oriented.pool.shape[0])
    if n_edges:
        with kernel_time(stats):
            kernel("formulas.cu", "ordered_triangles")(
                (grid_blocks(n_edges),), (256,),
                (ordered.offsets, ordered.degree, ordered.pool, oriented.offsets, oriented.degree,
                 oriented.pool, src, edge_tri, np.int64(n_edges), t))
    return t


def houses(graph: DeviceGraph, num_vertices: int, part: int = 0, parts: int = 1,
           stats: KernelStats | None = None) -> int:
    """The edge-induced houses of share part::parts: the sum over edges of t(e) times the 4-cycles
    through e (`house_wedges`) less four times the diamonds (`pair_sum` of `edge_triangles`), the
    formula of kernels/cpu_formulas.py."""
    n = num_vertices
    oriented, src = _oriented_edges(graph, n)
    edge_tri = edge_triangles(oriented, src, stats)
    ordered = degree_ordered(graph, n)
    slot_tri = ordered_triangles(ordered, oriented, src, edge_tri, stats)
    weighted = house_wedges(ordered, n, slot_tri, part, parts, stats=stats)
    return weighted - 4 * pair_sum(edge_tri, part, parts, stats)


def house_formula(plans: PlanTable) -> bool:
    """Whether the (static, one-plan) table counts edge-induced houses, which `houses` counts by
    formula."""
    return plans.order.shape[0] == 1 and is_edge_induced_house(plans)


def pair_sum(counts, part: int = 0, parts: int = 1, stats: KernelStats | None = None) -> int:
    """The sum of C(c, 2) over counts[part::parts] (uint32, formulas.cu: pair_sum)."""
    cp = cupy()
    out = cp.zeros(1, dtype=cp.uint64)
    n = int(counts.shape[0])
    if n > part:
        blocks = max(1, min(resident_blocks("pair_sum", "formulas.cu"), -(-(n // parts) // 256)))
        with kernel_time(stats):
            kernel("formulas.cu", "pair_sum")((blocks,), (256,),
                                              (counts, np.int64(n), np.int64(part), np.int64(parts), out))
    return int(out.get()[0])


CLIQUE_BITS_SIZES = (4, 5)  # clique sizes formulas.cu's clique_bits counts


def clique_bits(oriented: DeviceGraph, num_vertices: int, k: int, part: int = 0, parts: int = 1,
                stats: KernelStats | None = None) -> int:
    """The k-cliques (k in CLIQUE_BITS_SIZES) whose lowest vertex u is one of part::parts of the
    oriented graph, from the bit matrix of the graph each N+(u) induces (formulas.cu: clique_bits),
    costliest u first.  Each warp's scratch holds the largest such matrix."""
    cp = cupy()
    n = num_vertices
    deg = oriented.degree[:n]
    us = cp.arange(part, n, parts, dtype=cp.int64)
    us = us[deg[us] >= k - 1]
    if us.shape[0] == 0:
        return 0
    us = us[cp.argsort(-deg[us].astype(cp.int64))].astype(cp.int32)
    widest = int(deg[us[0]])
    words = widest * -(-widest // 32)
    function = f"clique_bits{k}"
    by_memory = max(1, int(free_bytes() * SCRATCH_SHARE) // (4 * words * FORMULA_WARPS_PER_BLOCK))
    wanted = -(-int(us.shape[0]) // FORMULA_WARPS_PER_BLOCK)
    blocks = max(1, min(resident_blocks(function, "formulas.cu"), by_memory, wanted))
    scratch = cp.empty(blocks * FORMULA_WARPS_PER_BLOCK * words, dtype=cp.uint32)
    queue, total = cp.zeros(1, dtype=cp.uint64), cp.zeros(1, dtype=cp.uint64)
    args = (oriented.offsets, oriented.degree, oriented.pool, us, np.int64(us.shape[0]), queue, scratch,
            np.int64(words), total)
    with kernel_time(stats):
        kernel("formulas.cu", function)((blocks,), (FORMULA_WARPS_PER_BLOCK * 32,), args)
    return int(total.get()[0])


@dataclass(frozen=True)
class StaticMethods:
    """How a whole-graph count runs (each a switch, so that its gain shows on and off).

    orient: cliques counted by a match run (the clique kernels off, or a size they do not take)
    run on the degree-oriented graph (`degree_oriented`) instead of the degree-ordered one with
    both directions of every edge; the clique kernels always use the oriented graph.
    clique_kernels: cliques are counted by kernels of their own instead of a match run: triangles
    as oriented intersections (`triangles`), 4- and 5-cliques from the bit matrices of the
    oriented graph's out-neighbourhoods (`clique_bits`).
    formulas: instead of a match run, the edge-induced diamond is the sum over edges of C(t, 2),
    t the edge's triangles (`edge_triangles`), and the edge-induced 4-cycle is counted from
    oriented wedges (`four_cycles`).
    house_formula: the edge-induced house by formula too (`houses`, kernels/cpu_formulas.py's
    formula; RMAT-20's houses in 784 ms on an H100, where a match run passed 20 s: docs/GPU.md,
    session 23).
    """

    orient: bool = True
    clique_kernels: bool = True
    formulas: bool = True
    house_formula: bool = True


def _oriented_edges(graph: DeviceGraph, num_vertices: int):
    """`degree_oriented(graph)` and the source (int32) of each of its edges, edge e = pool slot e."""
    oriented = degree_oriented(graph, num_vertices)
    src, _ = edge_ends(oriented, num_vertices)
    return oriented, src.astype(cupy().int32)


def static_count(graph: DeviceGraph, num_vertices: int, plans: PlanTable, part: int = 0, parts: int = 1, *,
                 methods: StaticMethods = StaticMethods(), balance: Balance = Balance(),
                 stats: KernelStats | None = None, budget_s: float | None = None) -> int:
    """The matches of a whole-graph count of a static plan table found from the seeds part::parts
    (a share of the count: the shares of parts 0 .. parts-1 sum to the count), on a degree
    relabelling of `graph` (counts do not depend on labels).  `stats` gets the device time of the
    count (relabelling left out, as G2Miner reports its time); only match runs take `budget_s`
    (formulas.cu's kernels run to the end)."""
    n = num_vertices
    if methods.formulas and methods.house_formula and house_formula(plans):
        return houses(graph, n, part, parts, stats)
    if methods.formulas and diamond_formula(plans):
        oriented, src = _oriented_edges(graph, n)
        return pair_sum(edge_triangles(oriented, src, stats), part, parts, stats)
    if methods.formulas and cycle_formula(plans):
        ordered = degree_ordered(graph, n)
        return four_cycles(ordered, n, part, parts, stats=stats)
    if methods.clique_kernels and orientable(plans) and plans.k in CLIQUE_BITS_SIZES:
        return clique_bits(degree_oriented(graph, n), n, plans.k, part, parts, stats)
    if methods.clique_kernels and orientable(plans) and plans.k == 3:
        oriented, src = _oriented_edges(graph, n)
        return triangles(oriented, src, part, parts, stats)
    relabel = degree_oriented if methods.orient and orientable(plans) else degree_ordered
    ordered = relabel(graph, n)
    tasks = static_tasks(ordered, n, plans)
    share = DeviceTasks(tasks.u[part::parts], tasks.v[part::parts], None, None)
    if share.size == 0:
        return 0
    return count_total(ordered, plans, share, device_batch(empty_batch(n)), balance=balance,
                       stats=stats, budget_s=budget_s)
