"""The engines the suite runs side by side, each over the same workload and one pattern.

Every engine answers the same questions: the static total after the load, then per batch
its wall latency, graph-update time, added/removed (where it knows them), the new total
and per-worker busy seconds.  An engine that cannot run here is `skipped` with the reason;
one stopped by its time budget is `capped` after the batches it finished.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numba
import numpy as np

from deltamatch.bench.workload import Workload
from deltamatch.kernels.cpu_engine import EngineOptions
from deltamatch.scheduler.core import SchedulerCore, WorkerPool
from deltamatch.scheduler.patterns import Pattern
from deltamatch.scheduler.plans import compile_plans, shared_plans, static_plan
from deltamatch.workers.protocol import PatternPlans
from deltamatch.workers.replica import GraphReplica

ALL_THREADS = numba.config.NUMBA_NUM_THREADS


@dataclass
class BatchRecord:
    """What one engine measured on one batch (added/removed are -1 where the engine only recounts)."""

    latency_s: float
    update_s: float
    added: int
    removed: int
    total: int
    busy_s: list[float] = field(default_factory=list)
    recounted: str = ""  # the sides counted by a whole-graph recount, "old+new" (routing: DELTAMATCH_RECOUNT)


@dataclass
class EngineRun:
    """One engine over one workload and pattern."""

    engine: str
    backend: str
    threads: int
    workers: int
    status: str = "ok"  # ok | capped | skipped | failed
    note: str = ""
    load_s: float = float("nan")
    initial_total: int = -1
    batches: list[BatchRecord] = field(default_factory=list)

    @property
    def added_known(self) -> bool:
        """Whether the engine reports added/removed (incremental) or only totals (recounts)."""
        return bool(self.batches) and self.batches[0].added >= 0


class _TimedBackend:
    """Delegates to a replica's backend and accumulates the time spent applying batches."""

    def __init__(self, inner) -> None:
        self._inner = inner
        self.apply_seconds = 0.0

    def apply(self, batch) -> None:
        start = time.perf_counter()
        self._inner.apply(batch)
        if self._inner.name == "cuda":
            import cupy

            cupy.cuda.Device().synchronize()
        self.apply_seconds += time.perf_counter() - start

    def __getattr__(self, name):
        return getattr(self._inner, name)


def _timed_replica(backend: str, cpu_options: EngineOptions | None = None) -> GraphReplica:
    replica = GraphReplica(backend)
    if replica.backend.name == "cpu":
        replica.backend.options = cpu_options
    replica.backend = _TimedBackend(replica.backend)
    return replica


def gpu_status() -> tuple[bool, str]:
    """(usable, reason): whether GraphReplica('cuda') can run here, and why not."""
    try:
        from deltamatch.workers.cuda_backend import cuda_available
    except ImportError as exc:
        return False, f"no GPU engine: {exc}"
    try:
        ok = bool(cuda_available())
    except Exception as exc:  # CuPy raises driver/runtime errors of several types
        return False, f"no GPU engine: {exc}"
    return ok, "" if ok else "no CUDA device visible to CuPy"


class _Budget:
    """A wall-clock budget for one engine run (None: unlimited)."""

    def __init__(self, seconds: float | None) -> None:
        self.deadline = None if seconds is None else time.perf_counter() + seconds
        self.seconds = seconds

    def spent(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline


def run_incremental(workload: Workload, pattern: Pattern, *, engine: str, backend: str, threads: int,
                    workers: int = 1, shared: bool = True, hoist: bool = True, policy: str = "even",
                    list_limit: int = 0, cpu_options: EngineOptions | None = None,
                    time_limit: float | None = None, on_batch=None) -> EngineRun:
    """SchedulerCore over `workers` replicas: load, register (static count), then every batch.
    `cpu_options` switches the CPU engine's count paths (None: the environment's)."""
    run = EngineRun(engine, backend, threads, workers)
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        replicas = [_timed_replica(backend, cpu_options) for _ in range(workers)]
        core = SchedulerCore(WorkerPool(replicas), shared=shared, hoist=hoist, list_limit=list_limit,
                             policy=policy)
        start = time.perf_counter()
        core.load(workload.initial)
        reg = core.register(pattern)
        run.load_s = time.perf_counter() - start
        run.initial_total = reg.total
        budget = _Budget(time_limit)
        for batch in workload.batches:
            if budget.spent():
                run.status, run.note = "capped", f"time limit {budget.seconds:g} s"
                break
            before = sum(r.backend.apply_seconds for r in replicas)
            t0 = time.perf_counter()
            out = core.apply(batch.insert, batch.delete)
            latency = time.perf_counter() - t0
            delta = out.deltas[reg.id]
            update = sum(r.backend.apply_seconds for r in replicas) - before
            recounted = "+".join(s for s in ("old", "new") if (reg.id, s) in out.recounted)
            run.batches.append(BatchRecord(latency, update, delta.added_count, delta.removed_count,
                                           delta.total, list(out.busy_seconds), recounted))
            if on_batch:
                on_batch()
    finally:
        numba.set_num_threads(previous)
    return run


def run_recount(workload: Workload, pattern: Pattern, *, backend: str, threads: int,
                time_limit: float | None = None, on_batch=None) -> EngineRun:
    """Apply each batch without matching, then count the whole graph from scratch."""
    run = EngineRun("recount", backend, threads, 1)
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        replica = _timed_replica(backend)
        replica.register(1, PatternPlans(compile_plans(pattern, shared_plans(pattern)),
                                         compile_plans(pattern, [static_plan(pattern)])))
        start = time.perf_counter()
        replica.apply_only(1, replica.normalize(workload.initial, None))
        run.initial_total = replica.static_count(1, 0, 1)
        run.load_s = time.perf_counter() - start
        budget = _Budget(time_limit)
        for version, batch in enumerate(workload.batches, start=2):
            if budget.spent():
                run.status, run.note = "capped", f"time limit {budget.seconds:g} s"
                break
            before = replica.backend.apply_seconds
            t0 = time.perf_counter()
            replica.apply_only(version, replica.normalize(batch.insert, batch.delete))
            total = replica.static_count(1, 0, 1)
            latency = time.perf_counter() - t0
            run.batches.append(BatchRecord(latency, replica.backend.apply_seconds - before, -1, -1, total,
                                           [latency]))
            if on_batch:
                on_batch()
    finally:
        numba.set_num_threads(previous)
    return run


def warm_up(pattern: Pattern, backends: list[str], workers: int = 1) -> None:
    """Compile the engines (numba JIT, CUDA kernels) for `pattern` on a tiny graph, untimed."""
    from deltamatch.bench.workload import make_workload

    clique = np.array([(u, v) for u in range(9) for v in range(u + 1, 9)], dtype=np.int64)
    workload = make_workload(clique, load_fraction=0.5, batch_size=6, delete_fraction=0.5)
    for backend in backends:
        for shared in (True, False):
            run_incremental(workload, pattern, engine="warm-up", backend=backend, threads=ALL_THREADS,
                            workers=workers, shared=shared)
        run_recount(workload, pattern, backend=backend, threads=ALL_THREADS)
