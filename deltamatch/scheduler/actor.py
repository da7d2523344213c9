"""The scheduler as a Ray actor: a thin shell around `SchedulerCore` plus durability.

`Scheduler` owns the worker actors (it is their only caller), the batch log and the
batch_id index.  A batch is applied, then logged and fsynced, then answered, so an
acknowledged batch is always on disk and one that crashed mid-way was never
acknowledged.  When the log write fails (disk full, I/O error) the batch is rolled
back: versions, totals, names and the scheduler's graph are restored and every worker is
rebuilt from the log before its next call, so memory never runs ahead of the log; the
caller gets `LogWriteError` and `health()` reports the log until a write succeeds again.

`RayWorkerPool` is the `WorkerPool` the core drives: it calls the worker actors, and
when one dies (or restarted since it was last seen) it rebuilds that worker from
snapshot + log, re-applies an in-flight bulk load there, and retries the call, so the
batch completes once (a `BatchPlan` carries everything the retry needs).  A worker is
rebuilt however often it dies, with backoff; one that Ray will not restart is replaced by
a new actor.  Batches the scheduler matched itself (`apply_behind`) are queued and sent
to the workers together, in one call each, when the queue is full or before the next call
that needs the workers: from inside this actor a Ray call costs about a millisecond, more
than such a batch's whole search.

The API calls `apply`, the batch hot path, over a direct channel (`channel()`, a Unix socket
beside Ray: `scheduler/channel.py`) and everything else through Ray; both reach the same methods
under the same lock.

The scheduler holds the log's writer lock and, given its owner (the API process),
ends the moment the owner ends: it never begins an append after that, nor dies halfway
through one (`workers.lifeline`).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import ray
from ray.exceptions import GetTimeoutError, RayActorError, RayTaskError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from deltamatch.scheduler.batch_log import BatchLog, LogWriteError, Record, RecoveredState, Snapshot
from deltamatch.scheduler.channel import ChannelAddress, ChannelServer
from deltamatch.scheduler.core import BatchOutcome, SchedulerCore, WorkerPool, split_shares
from deltamatch.scheduler.names import VertexNames
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.scheduler.routing import Routing
from deltamatch.scheduler.warmup import exercise
from deltamatch.workers.actor import SCRATCH, StaleWorkerError, make_worker_actors, thread_env
from deltamatch.workers.graph import NormalizedBatch
from deltamatch.workers.lifeline import Lifeline, OwnerProcess
from deltamatch.workers.protocol import BatchPlan, BatchResult, PatternPlans

log = logging.getLogger("deltamatch.scheduler")
MAX_ATTEMPTS = 5
# `apply_behind` sends its queue once it holds this many batches or changed pairs (bounds what a
# worker replays when it is next needed: some tens of ms at 10^6 edges)
BEHIND_BATCHES = 32
BEHIND_PAIRS = 20_000
REBUILD_DEADLINE_S = 60.0  # give up on one call's rebuilds after this long (the caller gets 503)
REPLACE_AFTER_FAILURES = 3  # rebuild attempts on one actor before it is replaced by a new one
# what the API may call over the direct channel (`scheduler/channel.py`): the batch hot path
CHANNEL_METHODS = ("apply",)


def _needs_rebuild(exc: BaseException) -> bool:
    if isinstance(exc, RayActorError):
        return True
    return isinstance(exc, RayTaskError) and isinstance(exc.cause, StaleWorkerError)


class RayWorkerPool(WorkerPool):
    """A `WorkerPool` over worker actor handles, with rebuild-and-retry (module docstring).

    `rebuild_source()` returns (external ids, edges, version, batches) of the last
    acknowledged state: the snapshot plus every logged batch after it.
    """

    def __init__(self, handles: Sequence, rebuild_source: Callable[[], tuple],
                 spawn: Callable[[], object] | None = None):
        self.replicas = list(handles)
        self.rebuild_source = rebuild_source
        self.spawn = spawn
        self.boot: list[str | None] = [None] * len(handles)
        self.plans: dict[int, PatternPlans] = {}
        self.in_flight: tuple[int, NormalizedBatch] | None = None  # an unacknowledged bulk load
        self.pending: list[tuple[int, NormalizedBatch]] = []  # apply_behind's queue, not yet sent
        self.pending_pairs = 0
        self.behind: list[tuple[int, Callable[[int], ray.ObjectRef], ray.ObjectRef]] = []  # sent, unanswered
        self.tasks_run = [0] * len(handles)
        self.busy_seconds = [0.0] * len(handles)
        self.rebuilds = [0] * len(handles)  # recoveries after a death or restart, not the first build
        self.schemes: dict[int, tuple[str | None, str]] = {}  # worker -> (boot id, share scheme)

    def register(self, pattern_id: int, plans: PatternPlans) -> bool:
        self.plans[pattern_id] = plans
        return all(self._gather(lambda w: self.replicas[w].register.remote(self.boot[w], pattern_id, plans)))

    def unregister(self, pattern_id: int) -> None:
        self.plans.pop(pattern_id, None)
        self._gather(lambda w: self.replicas[w].unregister.remote(self.boot[w], pattern_id))

    def share_schemes(self) -> list[str]:
        """Each worker's share scheme (`Worker.info`), asked again once the worker is rebuilt."""
        asked = {w: boot for w, (boot, _) in self.schemes.items()}
        stale = [w for w in range(len(self.replicas)) if w not in asked or asked[w] != self.boot[w]]
        infos = self._gather(lambda w: self.replicas[w].info.remote(), workers=stale)
        for w, info in zip(stale, infos, strict=True):
            self.schemes[w] = (self.boot[w], info["share_scheme"])
        schemes = [self.schemes[w][1] for w in range(len(self.replicas))]
        if stale and len(set(schemes)) > 1:
            log.warning("workers cut whole-graph counts differently (%s): only those of the most "
                        "common scheme count them", schemes)
        return schemes

    def static_count(self, pattern_id: int) -> int:
        """`WorkerPool.static_count`, counted again when a worker rebuilt meanwhile cuts shares by
        another scheme now (a replacement actor, or a GPU worker back on the CPU engine): its
        retried share was asked under the old one, and shares of two schemes need not add up."""
        schemes = self.share_schemes()
        for _ in range(MAX_ATTEMPTS):
            shares = split_shares(schemes)

            def submit(w: int, shares=shares) -> ray.ObjectRef:
                return self.replicas[w].static_count.remote(self.boot[w], pattern_id, *shares[w])

            total = sum(self._gather(submit, workers=[w for w, s in enumerate(shares) if s]))
            now = self.share_schemes()
            if now == schemes:
                return total
            schemes = now
        raise RuntimeError(f"the workers' share schemes kept changing over {MAX_ATTEMPTS} counts")

    def static_list(self, pattern_id: int) -> list[np.ndarray]:
        n = len(self.replicas)
        return self._gather(lambda w: self.replicas[w].static_list.remote(self.boot[w], pattern_id, w, n))

    def execute(self, plans: Sequence[BatchPlan],
                meanwhile: Callable[[], None] | None = None) -> list[BatchResult]:
        results = self._gather(lambda w: self.replicas[w].execute.remote(self.boot[w], plans[w]), meanwhile)
        for w, r in enumerate(results):
            self.tasks_run[w] += r.tasks_run
            self.busy_seconds[w] += r.busy_seconds
        return results

    def apply_only(self, version: int, batch: NormalizedBatch) -> None:
        self.in_flight = (version, batch)
        self._gather(lambda w: self.replicas[w].apply_only.remote(self.boot[w], version, batch))

    def apply_behind(self, version: int, batch: NormalizedBatch) -> None:
        """Queue the batch for every worker, without waiting: the queue is sent (one call per
        worker, unwaited) once it holds `BEHIND_BATCHES` batches or `BEHIND_PAIRS` changed pairs,
        and before the pool's next call, which waits for the answers first (by then the batches are
        logged, so a worker that failed them is rebuilt with them)."""
        self.pending.append((version, batch))
        self.pending_pairs += batch.deleted.shape[0] + batch.inserted.shape[0]
        if len(self.pending) >= BEHIND_BATCHES or self.pending_pairs >= BEHIND_PAIRS:
            self._collect()
            self._send_pending()

    def clear(self, version: int) -> None:
        self._gather(lambda w: self.replicas[w].clear.remote(self.boot[w], version))

    def info(self, w: int) -> dict:
        """Worker w's device and counters (`Worker.info`)."""
        self.settle()
        return self._result(w, lambda w: self.replicas[w].info.remote())

    def settle(self) -> None:
        """Bring every worker up to the batches `apply_behind` queued: send the queue and wait for
        the answers (rebuild-and-retry like any call: a retried apply of a version the worker holds
        does nothing)."""
        self._send_pending()
        self._collect()

    def _send_pending(self) -> None:
        if not self.pending:
            return
        batches, self.pending, self.pending_pairs = self.pending, [], 0

        def submit(w: int) -> ray.ObjectRef:
            return self.replicas[w].apply_batches.remote(self.boot[w], batches)

        self.behind.extend((w, submit, submit(w)) for w in range(len(self.replicas)))

    def _collect(self) -> None:
        behind, self.behind = self.behind, []
        for w, submit, ref in behind:
            self._result(w, submit, ref)

    def batch_done(self) -> None:
        """The in-flight batch is applied everywhere: a rebuild no longer redoes it."""
        self.in_flight = None

    def _gather(self, submit: Callable[[int], ray.ObjectRef],
                meanwhile: Callable[[], None] | None = None, workers: Sequence[int] | None = None) -> list:
        """Submit to every worker (or those in `workers`) at once, run `meanwhile` while they work,
        then collect in worker order."""
        self.settle()
        workers = range(len(self.replicas)) if workers is None else workers
        refs = {w: submit(w) for w in workers}
        if meanwhile is not None:
            meanwhile()
        return [self._result(w, submit, refs[w]) for w in workers]

    def _result(self, w: int, submit: Callable[[int], ray.ObjectRef], ref=None):
        """The answer of `submit(w)`: a worker that died or restarted is rebuilt (plus the
        in-flight bulk load) and asked again."""
        ref = submit(w) if ref is None else ref
        for attempt in range(MAX_ATTEMPTS):
            try:
                return ray.get(ref)
            except (RayActorError, RayTaskError) as exc:
                if not _needs_rebuild(exc) or attempt == MAX_ATTEMPTS - 1:
                    raise
            self.rebuild(w)
            if self.in_flight is not None:
                version, batch = self.in_flight
                ray.get(self.replicas[w].apply_only.remote(self.boot[w], version, batch))
            ref = submit(w)
        raise AssertionError("unreachable")

    def rebuild(self, w: int) -> None:
        """Bring worker w to the last acknowledged state, retrying with backoff while Ray restarts
        it and replacing an actor that keeps failing (`spawn`); gives up after `REBUILD_DEADLINE_S`."""
        external, edges, version, batches = self.rebuild_source()
        deadline = time.monotonic() + REBUILD_DEADLINE_S
        delay, failures = 0.1, 0
        while True:
            try:
                ref = self.replicas[w].rebuild.remote(external, edges, version, batches, self.plans)
                self.boot[w] = ray.get(ref)
                self.rebuilds[w] += 1
                return
            except RayActorError:
                failures += 1
                if time.monotonic() + delay > deadline:
                    raise
            if failures % REPLACE_AFTER_FAILURES == 0 and self.spawn is not None:
                ray.kill(self.replicas[w], no_restart=True)
                self.replicas[w] = self.spawn()
                log.warning("worker %d kept failing: replaced by a new actor", w)
            time.sleep(delay)
            delay = min(2 * delay, 2.0)

    def rebuild_all(self) -> None:
        """Rebuild every worker in parallel (service start)."""
        external, edges, version, batches = self.rebuild_source()
        refs = [h.rebuild.remote(external, edges, version, batches, self.plans) for h in self.replicas]
        for w, ref in enumerate(refs):
            try:
                self.boot[w] = ray.get(ref)
            except RayActorError:
                self.rebuild(w)

    def invalidate_all(self) -> None:
        """Forget every worker's boot id: each is rebuilt from the log before its next call."""
        self.boot = [None] * len(self.replicas)
        self.pending, self.pending_pairs, self.behind = [], 0, []


class ScratchPool(RayWorkerPool):
    """The workers' throw-away replicas (calls addressed to `SCRATCH`): the warm-up session
    runs there, on the real worker processes, leaving their graphs untouched."""

    def __init__(self, handles: Sequence):
        super().__init__(handles, lambda: (np.zeros(0, np.int64), np.zeros((0, 2), np.int64), 0, []))
        self.boot = [SCRATCH] * len(handles)

    def _result(self, w: int, submit: Callable[[int], ray.ObjectRef], ref=None):
        """No rebuild and retry: a rebuild would address the real replica."""
        return ray.get(submit(w) if ref is None else ref)


@dataclass(frozen=True)
class CoreState:
    """The scheduler core's state before a batch (`Scheduler._roll_back`)."""

    version: int
    totals: dict[int, tuple[int, int]]  # pattern id -> (total, version)
    names: VertexNames | None  # a copy of the name table, when the batch may empty it
    names_kind: str | None
    names_count: int


def _pattern_spec(reg) -> dict:
    p = reg.pattern
    return {"edges": [list(e) for e in p.edges], "induced": p.induced, "name": p.name}


def _answer(outcome: BatchOutcome, batch_id: str | None) -> dict:
    return {
        "version": outcome.version,
        "batch_id": batch_id,
        "inserted": outcome.inserted,
        "deleted": outcome.deleted,
        "ignored": outcome.ignored,
        "deltas": {str(pid): {"added": d.added_count, "removed": d.removed_count, "total": d.total}
                   for pid, d in outcome.deltas.items()},
        "elapsed_ms": round(outcome.elapsed_ms, 3),
    }


class Scheduler:
    """Batch order, patterns, durability and worker recovery (see module docstring).

    Mutating methods hold one lock; `ready`, `cluster` and `status` do not, so they
    answer while a batch runs (the actor is threaded).
    """

    def __init__(self, data_dir: str, num_workers: int = 2, backend: str = "auto",
                 num_gpus_per_worker: float = 0.0, list_limit: int = 1000,
                 snapshot_every: int = 1000, snapshot_bytes: int = 256 << 20,
                 policy: str = "calibrated", owner: OwnerProcess | None = None,
                 repair: bool = False, routing: Routing | None = None) -> None:
        self.lifeline = Lifeline(owner)
        self.lifeline.exit_with_owner()
        self.log = BatchLog(data_dir)
        self.repair = repair
        self.snapshot_every = snapshot_every
        self.snapshot_bytes = snapshot_bytes
        env = thread_env(num_workers)
        handles = make_worker_actors(num_workers, backend, num_gpus_per_worker, owner=owner, env=env)
        self.pool = RayWorkerPool(
            handles, self._rebuild_source,
            spawn=lambda: make_worker_actors(1, backend, num_gpus_per_worker, owner=owner, env=env)[0])
        self.core = SchedulerCore(self.pool, list_limit=list_limit, policy=policy, routing=routing)
        self.lock = threading.Lock()
        self._ready = False
        self._state: RecoveredState | None = None
        self._snapshot = Snapshot()
        self.batch_ids = None
        self.devices: list[dict] = []
        self._devices_at: list[int] = []
        self.in_flight_version: int | None = None
        self.recovered: dict = {}
        self.log_error: str | None = None  # the last failed append, until a write succeeds again
        self._graph_stats = {"vertices": 0, "edges": 0, "max_degree": 0}
        self.started_at = time.time()
        self._channel: ChannelServer | None = None

    # start --------------------------------------------------------------------
    def start(self) -> dict:
        """Replay snapshot + log, rebuild every worker, re-register patterns, warm every
        engine path (`warmup.exercise`); then ready."""
        with self.lock:
            t0 = time.perf_counter()
            state = self.log.recover(repair=self.repair)
            self._state = state
            self._snapshot = state.snapshot
            self.batch_ids = state.batch_ids
            self.pool.rebuild_all()
            self.core.restore(*self._rebuild_source())
            self.core.names = VertexNames(state.vertex_kind, state.names)
            for pid in sorted(state.patterns):
                spec = state.patterns[pid]
                self.core.register(parse_pattern(spec["edges"], spec["induced"], spec.get("name")), pid)
            mismatch = {pid: (state.totals[pid], reg.total) for pid, reg in self.core.patterns.items()
                        if pid in state.totals and state.totals[pid] != reg.total}
            warm = time.perf_counter()
            scratch = ScratchPool(self.pool.replicas)
            exercise(SchedulerCore(scratch, policy=self.core.policy, routing=self.core.routing))
            scratch.settle()
            ray.get([h.drop_scratch.remote() for h in self.pool.replicas])
            self.devices = ray.get([h.info.remote() for h in self.pool.replicas])
            self._devices_at = list(self.pool.rebuilds)
            self.recovered = {
                "version": state.version,
                "patterns": len(state.patterns),
                "records_replayed": len(state.records),
                "snapshot_version": state.snapshot.version,
                "seconds": round(time.perf_counter() - t0, 3),
                "warm_up_seconds": round(time.perf_counter() - warm, 3),
                "total_mismatches": {str(k): v for k, v in mismatch.items()},
            }
            self._ready = True
            return self.recovered

    def channel(self) -> ChannelAddress:
        """The address of the direct channel serving `CHANNEL_METHODS` (started on the first call):
        the same methods as through Ray, the same lock, without Ray's per-call cost."""
        if self._channel is None:
            self._channel = ChannelServer(lambda method, args: getattr(self, method)(*args),
                                          CHANNEL_METHODS)
        return self._channel.address

    def _rebuild_source(self) -> tuple:
        snap = self._snapshot
        batches = [(int(r.header["version"]), r.insert, r.delete) for r in self._state.batches()]
        return snap.external, snap.edges, snap.version, batches

    def ready(self) -> bool:
        return self._ready

    def health(self, timeout: float = 2.0) -> dict:
        """Readiness: `{"ready", "detail"}`; ready once started, with the log writable (a failed
        append is re-checked by a probe write) and every worker answering a ping in `timeout` s."""
        problems = []
        if not self._ready:
            problems.append("the scheduler is starting")
        if self.log_error is not None and self.lock.acquire(blocking=False):
            try:
                self.log.probe()
                self.log_error = None
            except OSError as exc:
                self.log_error = f"data directory not writable: {exc.strerror or exc}"
            finally:
                self.lock.release()
        if self.log_error is not None:
            problems.append(self.log_error)
        refs = [h.ping.remote() for h in self.pool.replicas]
        for w, ref in enumerate(refs):
            try:
                ray.get(ref, timeout=timeout)
            except GetTimeoutError:
                problems.append(f"worker {w} did not answer within {timeout:g} s")
            except RayActorError:
                problems.append(f"worker {w} is down")
        return {"ready": not problems, "detail": "; ".join(problems) or None}

    # patterns -----------------------------------------------------------------
    def register(self, edges, induced: bool = False, name: str | None = None) -> dict:
        """Register a pattern (edge list or built-in name); logged before the answer."""
        pattern = parse_pattern(edges, induced, name)
        with self.lock:
            reg = self.core.register(pattern)
            try:
                self._append(Record({"kind": "register", "pattern_id": reg.id,
                                     "pattern": _pattern_spec(reg), "version": self.core.version}))
            except LogWriteError:
                self.core.unregister(reg.id)
                raise
            return reg.describe()

    def unregister(self, pattern_id: int) -> bool:
        """Remove a pattern; False when unknown."""
        with self.lock:
            if pattern_id not in self.core.patterns:
                return False
            self._append(Record({"kind": "unregister", "pattern_id": pattern_id,
                                 "version": self.core.version}))
            self.core.unregister(pattern_id)
            return True

    def patterns(self) -> list[dict]:
        return [reg.describe() for reg in list(self.core.patterns.values())]

    def pattern(self, pattern_id: int) -> dict | None:
        reg = self.core.patterns.get(pattern_id)
        return reg.describe() if reg else None

    def matches(self, pattern_id: int, offset: int = 0, limit: int | None = None,
                most: int | None = None) -> tuple[int, int, np.ndarray | None] | None:
        """(version, total, the current matches sorted, rows offset..offset+limit) or None when
        unknown.  The rows are None when the total passes `most`: a page needs every current
        match listed and sorted, and billions of them would exhaust the scheduler's memory."""
        with self.lock:
            reg = self.core.patterns.get(pattern_id)
            if reg is None:
                return None
            if most is not None and reg.total > most:
                return self.core.version, reg.total, None
            rows = self.core.matches(pattern_id)
            end = None if limit is None else offset + limit
            return self.core.version, reg.total, rows[offset:end]

    # batches ------------------------------------------------------------------
    def apply(self, insert, delete, batch_id: str | None = None) -> tuple[dict, dict]:
        """Apply one batch; returns (SPEC answer, per-pattern delta events).  A known
        batch_id returns its original answer and no events."""
        return self._run("batch", insert, delete, batch_id)

    def load(self, edges, batch_id: str | None = None) -> tuple[dict, dict]:
        """Bulk-load edges as one version, counts exact, no listings."""
        return self._run("load", edges, None, batch_id)

    def clear(self) -> tuple[dict, dict]:
        """Remove every edge as the next version (`SchedulerCore.clear`); made durable by a
        snapshot of the empty graph before the answer."""
        return self._run("clear", None, None, None)

    def _run(self, kind: str, insert, delete, batch_id: str | None) -> tuple[dict, dict]:
        with self.lock:
            start = time.perf_counter()
            if batch_id is not None and batch_id in self.batch_ids:
                return dict(self.batch_ids[batch_id], duplicate=True), {}
            before = self._core_state(full_names=kind == "clear")
            self.in_flight_version = self.core.version + 1
            try:
                if kind == "batch":
                    outcome = self.core.apply(insert, delete)
                else:
                    outcome = self.core.load(insert) if kind == "load" else self.core.clear()
            except Exception as exc:
                if not isinstance(exc, ValueError):
                    # some replicas, and the scheduler's graph when it matched the batch itself, may
                    # hold the half-done batch: rebuild them all from the log
                    self.pool.invalidate_all()
                    self.core.restore(*self._rebuild_source())
                raise
            finally:
                self.pool.batch_done()
                self.in_flight_version = None
            answer = _answer(outcome, batch_id)
            logged = time.perf_counter()
            try:
                if kind == "clear":
                    self.snapshot()
                else:
                    self._log_batch(kind, outcome, answer, batch_id)
            except OSError as exc:  # LogWriteError, or the clear's snapshot: nothing may stay applied
                self._roll_back(before)
                if isinstance(exc, LogWriteError):
                    raise
                raise LogWriteError(f"data directory: {exc.strerror or exc}") from exc
            if batch_id is not None:
                self.log.remember(self.batch_ids, batch_id, answer)
            events = {
                pid: {"added_count": d.added_count, "removed_count": d.removed_count, "total": d.total,
                      "added": d.added, "removed": d.removed, "truncated": bool(d.truncated)}
                for pid, d in outcome.deltas.items()
            }
            if kind != "clear":
                self._maybe_snapshot()
            done = time.perf_counter()
            stages = dict(outcome.stages(), log=done - logged)
            return answer, {"version": outcome.version, "batch_id": batch_id, "kind": kind,
                            "busy_seconds": outcome.busy_seconds, "local": outcome.local,
                            "recounted": sorted(side for _, side in outcome.recounted),
                            "elapsed_ms": outcome.elapsed_ms, "patterns": events, "stages": stages,
                            "scheduler_seconds": done - start}

    def _log_batch(self, kind: str, outcome: BatchOutcome, answer: dict, batch_id: str | None) -> None:
        encoded = outcome.encoded
        header = {"kind": kind, "version": outcome.version, "batch_id": batch_id, "answer": answer,
                  "vertex_kind": encoded.kind}
        if encoded.new_names:
            header["names"] = encoded.new_names
        self._append(Record(header, *encoded.pairs))

    def _append(self, record: Record) -> None:
        """Log `record` durably; never after the owner is gone (nobody would get the answer)."""
        try:
            with self.lifeline.while_owner_alive():
                self.log.append(record)
        except LogWriteError as exc:
            self.log_error = str(exc)
            raise
        self.log_error = None
        self._state.records.append(record)

    def _core_state(self, full_names: bool) -> CoreState:
        """What `_roll_back` restores: version, totals and the name table (its length, or for a
        clear, which empties it, a copy)."""
        names = self.core.names
        return CoreState(self.core.version,
                         {pid: (r.total, r.version) for pid, r in self.core.patterns.items()},
                         VertexNames(names.kind, names.names) if full_names else None,
                         names.kind, len(names))

    def _roll_back(self, before: CoreState) -> None:
        """Undo an applied batch whose record was not logged: the core's version, totals and
        names are restored, and every worker is rebuilt from the log before its next call."""
        self.core.version = before.version
        for pid, (total, at) in before.totals.items():
            self.core.patterns[pid].total, self.core.patterns[pid].version = total, at
        if before.names is not None:
            self.core.names = before.names
        else:
            self.core.names.truncate(before.names_kind, before.names_count)
        self.core.restore(*self._rebuild_source())  # the scheduler's graph, as logged
        self.pool.invalidate_all()

    def _maybe_snapshot(self) -> None:
        if (self.log.batches_since_snapshot >= self.snapshot_every
                or self.log.bytes_since_snapshot >= self.snapshot_bytes):
            try:
                self.snapshot()
            except Exception:  # the batch is logged already: the log alone recovers it
                log.exception("snapshot failed; the log keeps growing until one succeeds")

    def snapshot(self) -> int:
        """Write a snapshot of the current state now; returns its version."""
        external, edges = self.core.intake.snapshot()
        snap = Snapshot(
            version=self.core.version,
            external=external,
            edges=edges,
            patterns={pid: _pattern_spec(reg) for pid, reg in self.core.patterns.items()},
            totals={pid: reg.total for pid, reg in self.core.patterns.items()},
            batch_ids=dict(self.batch_ids),
            names=self.core.names.names,
            vertex_kind=self.core.names.kind,
        )
        self.log.write_snapshot(snap)
        self._snapshot = snap
        self._state.records = []
        return snap.version

    # observability -------------------------------------------------------------
    def cluster(self) -> dict:
        """Workers (device, counters) and graph stats; refreshed only when no batch holds the lock."""
        if self._ready and self.lock.acquire(blocking=False):
            try:
                stats = self.core.stats()
                self._graph_stats = {"vertices": stats.vertices, "edges": stats.edges,
                                     "max_degree": stats.max_degree}
                for w, seen in enumerate(self._devices_at):
                    if seen != self.pool.rebuilds[w]:  # a restarted worker: new process, maybe new device
                        self.devices[w] = self.pool.info(w)
                        self._devices_at[w] = self.pool.rebuilds[w]
            finally:
                self.lock.release()
        workers = []
        for w, dev in enumerate(self.devices):
            workers.append({
                "worker": w, "device": dev.get("device"), "backend": dev.get("backend"),
                "gpu_name": dev.get("gpu_name"), "memory_bytes": dev.get("memory_bytes"),
                "node": dev.get("node"), "gpu_ids": dev.get("gpu_ids", []), "pid": dev.get("pid"),
                "share_scheme": dev.get("share_scheme"),
                "tasks_run": self.pool.tasks_run[w],
                "busy_seconds": round(self.pool.busy_seconds[w], 6), "rebuilds": self.pool.rebuilds[w],
            })
        return {"workers": workers, "graph": dict(self._graph_stats, version=self.core.version),
                "patterns": len(self.core.patterns), "in_flight_version": self.in_flight_version,
                "recovered": self.recovered, "ready": self._ready, "scheduler_pid": os.getpid()}

    def worker_handles(self) -> list:
        """The worker actor handles (for tests and operators: `ray.kill` one to test recovery)."""
        return list(self.pool.replicas)


def make_scheduler_actor(data_dir: str, **options):
    """Start the scheduler actor on the caller's Ray node (threaded, so status calls answer
    during a batch)."""
    # `data_dir` is a path on the service's machine; in a multi-node cluster Ray could
    # otherwise place a resource-free actor on any node, away from the data volume.
    here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
    return ray.remote(Scheduler).options(num_cpus=0, max_concurrency=8,
                                         scheduling_strategy=here).remote(data_dir, **options)
