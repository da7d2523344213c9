"""A worker's replica: the whole graph, the registered patterns' plans, and batch execution.

Every replica applies every batch in version order; the scheduler only decides which
tasks each replica runs.  Replicas normalize batches identically, so internal vertex
ids and batch ranks agree across them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from deltamatch.kernels.cpu_engine import canonical_rows
from deltamatch.kernels.plan_table import PlanTable, TaskList
from deltamatch.workers.backends import make_backend
from deltamatch.workers.features import PairFeatures, pair_features
from deltamatch.workers.graph import NormalizedBatch


@dataclass
class PatternPlans:
    """What a replica needs of a pattern: the batch plans and the static plan."""

    batch: PlanTable
    static: PlanTable


@dataclass
class SideResult:
    """One pattern, one side of a batch: matches found (exact) and up to the cap listed."""

    count: int = 0
    rows: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))
    truncated: bool = False


@dataclass
class BatchResult:
    """A replica's share of one batch's deltas."""

    version: int
    removed: dict[int, SideResult]
    added: dict[int, SideResult]
    busy_seconds: float
    tasks_run: int
    group_seconds: dict[tuple[int, str], float] = field(default_factory=dict)  # (pattern, side) -> s


class GraphReplica:
    """The graph plus patterns on one worker (see module docstring)."""

    clock = staticmethod(time.perf_counter)  # busy-time clock; benchmarks may use CPU time

    def __init__(self, backend: str = "auto") -> None:
        self.backend = make_backend(backend)
        self.patterns: dict[int, PatternPlans] = {}
        self.version = 0
        self.tasks_run = 0
        self.busy_seconds = 0.0
        self._graph_totals: tuple[int, int, int, int] | None = None  # (version, edges, vertices, Σd²)

    @property
    def graph(self):
        return self.backend.graph

    def register(self, pattern_id: int, plans: PatternPlans) -> None:
        self.patterns[pattern_id] = plans

    def unregister(self, pattern_id: int) -> None:
        self.patterns.pop(pattern_id, None)

    def normalize(self, insert, delete) -> NormalizedBatch:
        return self.graph.normalize(insert, delete)

    def task_features(self, batch: NormalizedBatch, wanted: bool = True,
                      common: bool = True) -> PairFeatures | None:
        """The cost model's features of a normalized, not yet applied batch (None unless
        `wanted`: the scheduler asks one replica and passes False to the others);
        common-neighbour counts only when `common`."""
        if not wanted:
            return None
        g = self.graph
        start = self.clock()
        cached = self._graph_totals
        if cached is not None and cached[:2] == (self.version, g.num_edges):
            feats = pair_features(g, batch, cached[2], common, square_sum_old=cached[3])
        else:
            feats = pair_features(g, batch, g.num_vertices, common)
        feats = replace(feats, seconds=self.clock() - start)
        # The scheduler applies the batch it prepared as the next version: keep G_new's totals.
        edges_new = g.num_edges + batch.inserted.shape[0] - batch.deleted.shape[0]
        self._graph_totals = (self.version + 1, edges_new, feats.new.num_vertices, feats.new.square_sum)
        return feats

    def clear(self, version: int) -> None:
        """Drop every edge and vertex (a fresh graph on the same backend) as `version`;
        registered patterns stay."""
        self.backend = make_backend(self.backend.name)
        self.version = version
        self._graph_totals = None

    def apply_only(self, version: int, batch: NormalizedBatch) -> None:
        """Apply without matching (bulk load, rebuild)."""
        self.backend.apply(batch)
        self.version = version

    def execute(self, version: int, batch: NormalizedBatch,
                tasks: dict[int, tuple[TaskList, TaskList]], list_limit: int) -> BatchResult:
        """Run removal tasks on G_old, apply the batch, run addition tasks on G_new.

        `tasks[pid]` = (old-side tasks, new-side tasks); rows come back in listed form
        (external ids), at most `list_limit` per side and pattern.
        """
        start = self.clock()
        removed: dict[int, SideResult] = {}
        added: dict[int, SideResult] = {}
        groups: dict[tuple[int, str], float] = {}
        view = self.backend.batch_view(batch.changed)
        try:
            for pid, (old_tasks, _) in tasks.items():
                t0 = self.clock()
                removed[pid] = self._run_side(pid, old_tasks, view, list_limit)
                groups[(pid, "old")] = self.clock() - t0
            self.backend.apply(batch)
            self.version = version
            for pid, (_, new_tasks) in tasks.items():
                t0 = self.clock()
                added[pid] = self._run_side(pid, new_tasks, view, list_limit)
                groups[(pid, "new")] = self.clock() - t0
        finally:
            self.backend.release(view)
        busy = self.clock() - start
        self.busy_seconds += busy
        run = sum(a.size + b.size for a, b in tasks.values())
        self.tasks_run += run
        return BatchResult(version, removed, added, busy, run, groups)

    def _run_side(self, pid: int, tasks: TaskList, view, list_limit: int) -> SideResult:
        plans = self.patterns[pid].batch
        if tasks.size == 0:
            return SideResult(0, np.zeros((0, plans.k), dtype=np.int64))
        counts = self.backend.count(plans, tasks, view, plans.induced)
        return self._listed(plans, tasks, view, counts, plans.induced, list_limit)

    def _listed(self, plans: PlanTable, tasks: TaskList, view, counts: np.ndarray,
                check_other: bool, list_limit: int) -> SideResult:
        total = int(counts.sum())
        if list_limit <= 0 or total == 0:
            return SideResult(total, np.zeros((0, plans.k), dtype=np.int64), total > 0)
        cut = int(np.searchsorted(np.cumsum(counts), list_limit, side="left")) + 1
        cut = min(cut, tasks.size)
        head = tasks.take(np.arange(cut))
        rows = self.backend.list(plans, head, view, counts[:cut], check_other)
        ext = self.graph.vertices.external[rows]
        listed = canonical_rows(ext, plans.automorphisms)[:list_limit]
        return SideResult(total, listed, listed.shape[0] < total)

    def static_count(self, pattern_id: int, part: int, parts: int) -> int:
        """Matches found by this replica's share (edges part::parts) of a whole-graph count."""
        return self.backend.static_count(self.patterns[pattern_id].static, part, parts)

    def static_list(self, pattern_id: int, part: int, parts: int) -> np.ndarray:
        """Listed forms of this replica's share of the current matches."""
        plans = self.patterns[pattern_id].static
        tasks = self._static_share(part, parts)
        view = self.backend.batch_view(np.zeros((0, 2), dtype=np.int32))
        try:
            counts = self.backend.count(plans, tasks, view, False)
            rows = self.backend.list(plans, tasks, view, counts, False)
        finally:
            self.backend.release(view)
        return canonical_rows(self.graph.vertices.external[rows], plans.automorphisms)

    def _static_share(self, part: int, parts: int) -> TaskList:
        return TaskList.static(self.graph.internal_edges()[part::parts])

    def stats(self) -> dict:
        g = self.graph
        return {
            "vertices": g.num_vertices,
            "edges": g.num_edges,
            "max_degree": g.max_degree,
            "version": self.version,
        }
