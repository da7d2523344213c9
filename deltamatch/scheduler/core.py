"""The scheduler's logic, free of Ray: versions, patterns, task assignment, delta merging.

`SchedulerCore` drives a `WorkerPool` (local replicas in tests and the CLI, Ray actors
in the service).  For each batch it has every replica normalize the batch, turns the
changed pairs into tasks (changed pair x shared plan), splits them between the
replicas, and merges their partial results into one delta per pattern.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from deltamatch.kernels.plan_table import TaskList
from deltamatch.scheduler.allocation import Allocation, allocate
from deltamatch.scheduler.patterns import Pattern
from deltamatch.scheduler.plans import compile_plans, per_edge_plans, shared_plans, static_plan
from deltamatch.scheduler.tasks import NEW, OLD, batch_tasks
from deltamatch.workers.replica import GraphReplica, PatternPlans, SideResult


class WorkerPool:
    """Calls one method on every replica and returns their answers in worker order."""

    def __init__(self, replicas: Sequence[GraphReplica]):
        self.replicas = list(replicas)

    def __len__(self) -> int:
        return len(self.replicas)

    def map(self, method: str, args_per_worker: Sequence[tuple]) -> list:
        return [getattr(r, method)(*a) for r, a in zip(self.replicas, args_per_worker, strict=True)]

    def broadcast(self, method: str, *args) -> list:
        return self.map(method, [args] * len(self))

    def replicas_empty(self) -> bool:
        return self.broadcast("stats")[0]["edges"] == 0


@dataclass
class RegisteredPattern:
    """A pattern with its id, plans, and running total."""

    id: int
    pattern: Pattern
    plans: PatternPlans
    num_plans: int
    total: int
    version: int

    def describe(self) -> dict:
        p = self.pattern
        return {
            "id": self.id,
            "name": p.name,
            "k": p.k,
            "edges": [list(e) for e in p.edges],
            "induced": p.induced,
            "automorphisms": int(p.automorphisms.shape[0]),
            "edge_classes": [[list(e) for e in c] for c in p.edge_classes],
            "plans": self.num_plans,
            "version": self.version,
            "total": self.total,
        }


@dataclass
class PatternDelta:
    """The exact delta of one pattern at one version; listings may be capped."""

    added_count: int
    removed_count: int
    total: int
    added: np.ndarray
    removed: np.ndarray
    truncated: bool


@dataclass
class BatchOutcome:
    """What one applied batch did."""

    version: int
    inserted: int
    deleted: int
    ignored: int
    deltas: dict[int, PatternDelta] = field(default_factory=dict)
    elapsed_ms: float = 0.0
    busy_seconds: list[float] = field(default_factory=list)
    allocation_seconds: float = 0.0


class SchedulerCore:
    """Owns batch order and pattern state; see module docstring."""

    def __init__(self, pool: WorkerPool, *, shared: bool = True, list_limit: int = 10_000,
                 policy: str = "even", on_batch: Callable[[BatchOutcome], None] | None = None):
        self.pool = pool
        self.shared = shared
        self.list_limit = list_limit
        self.policy = policy
        self.version = 0
        self.patterns: dict[int, RegisteredPattern] = {}
        self._ids = itertools.count(1)
        self.on_batch = on_batch
        self.last_allocation: Allocation | None = None

    # patterns -----------------------------------------------------------------
    def register(self, pattern: Pattern, pattern_id: int | None = None) -> RegisteredPattern:
        """Add a pattern; its total starts at the static count of the current graph."""
        pid = pattern_id if pattern_id is not None else next(self._ids)
        plan_list = shared_plans(pattern) if self.shared else per_edge_plans(pattern)
        plans = PatternPlans(compile_plans(pattern, plan_list), compile_plans(pattern, [static_plan(pattern)]))
        self.pool.broadcast("register", pid, plans)
        parts = len(self.pool)
        total = sum(self.pool.map("static_count", [(pid, i, parts) for i in range(parts)]))
        reg = RegisteredPattern(pid, pattern, plans, len(plan_list), total, self.version)
        self.patterns[pid] = reg
        self._ids = itertools.count(max(pid + 1, next(self._ids)))
        return reg

    def unregister(self, pattern_id: int) -> None:
        self.patterns.pop(pattern_id)
        self.pool.broadcast("unregister", pattern_id)

    def matches(self, pattern_id: int) -> np.ndarray:
        """Every current match in listed form, sorted."""
        reg = self.patterns[pattern_id]
        parts = len(self.pool)
        rows = self.pool.map("static_list", [(pattern_id, i, parts) for i in range(parts)])
        rows = np.concatenate([r.reshape(-1, reg.pattern.k) for r in rows])
        return rows[np.lexsort(rows.T[::-1])] if rows.shape[0] else rows

    # batches ------------------------------------------------------------------
    def apply(self, insert, delete) -> BatchOutcome:
        """Apply one batch atomically as the next version and return its deltas."""
        start = time.perf_counter()
        batch = self.pool.broadcast("normalize", insert, delete)[0]
        version = self.version + 1
        changed = batch.changed
        n_del = batch.deleted.shape[0]
        per_worker: list[dict[int, tuple[TaskList, TaskList]]] = [dict() for _ in range(len(self.pool))]
        alloc_seconds = 0.0
        for pid, reg in self.patterns.items():
            sides = []
            for side in (OLD, NEW):
                tasks = batch_tasks(reg.plans.batch, changed, n_del, side)
                t0 = time.perf_counter()
                allocation = allocate(tasks, len(self.pool), self.policy)
                alloc_seconds += time.perf_counter() - t0
                self.last_allocation = allocation
                sides.append([tasks.take(idx) for idx in allocation.assignment])
            for w in range(len(self.pool)):
                per_worker[w][pid] = (sides[0][w], sides[1][w])
        results = self.pool.map(
            "execute", [(version, batch, per_worker[w], self.list_limit) for w in range(len(self.pool))]
        )
        self.version = version
        outcome = BatchOutcome(version, batch.inserted.shape[0], n_del, batch.ignored)
        for pid, reg in self.patterns.items():
            removed = _merge([r.removed[pid] for r in results], self.list_limit, reg.pattern.k)
            added = _merge([r.added[pid] for r in results], self.list_limit, reg.pattern.k)
            reg.total += added.count - removed.count
            reg.version = version
            outcome.deltas[pid] = PatternDelta(
                added.count, removed.count, reg.total, added.rows, removed.rows,
                added.truncated or removed.truncated,
            )
        outcome.busy_seconds = [r.busy_seconds for r in results]
        outcome.allocation_seconds = alloc_seconds
        outcome.elapsed_ms = (time.perf_counter() - start) * 1e3
        if self.on_batch:
            self.on_batch(outcome)
        return outcome

    def load(self, insert) -> BatchOutcome:
        """Bulk-load edges as one version without listing deltas (counts stay exact).

        Into an empty graph this is an apply plus one static count per pattern;
        otherwise it is an ordinary batch with listing off.
        """
        if self.pool.replicas_empty():
            return self._load_empty(insert)
        limit, self.list_limit = self.list_limit, 0
        try:
            return self.apply(insert, None)
        finally:
            self.list_limit = limit

    def _load_empty(self, insert) -> BatchOutcome:
        start = time.perf_counter()
        batch = self.pool.broadcast("normalize", insert, None)[0]
        version = self.version + 1
        self.pool.broadcast("apply_only", version, batch)
        self.version = version
        outcome = BatchOutcome(version, batch.inserted.shape[0], 0, batch.ignored)
        parts = len(self.pool)
        for pid, reg in self.patterns.items():
            total = sum(self.pool.map("static_count", [(pid, i, parts) for i in range(parts)]))
            empty = np.zeros((0, reg.pattern.k), dtype=np.int64)
            outcome.deltas[pid] = PatternDelta(total, 0, total, empty, empty, total > 0)
            reg.total, reg.version = total, version
        outcome.elapsed_ms = (time.perf_counter() - start) * 1e3
        if self.on_batch:
            self.on_batch(outcome)
        return outcome


def _merge(parts: list[SideResult], limit: int, k: int) -> SideResult:
    count = sum(p.count for p in parts)
    rows = [p.rows.reshape(-1, k) for p in parts if p.rows.size]
    listed = np.concatenate(rows) if rows else np.zeros((0, k), dtype=np.int64)
    if listed.shape[0]:
        listed = listed[np.lexsort(listed.T[::-1])][:limit]
    return SideResult(count, listed, listed.shape[0] < count)
