"""A worker's replica: the whole graph, the registered patterns' plans, and batch execution.

Every replica applies every batch in version order; the scheduler normalizes each batch
once (against its own copy of the graph) and only decides which tasks each replica runs.
A normalized batch names the vertices it adds, so internal vertex ids and batch ranks
agree across replicas.
"""

from __future__ import annotations

import time

import numpy as np

from deltamatch.kernels.cpu_engine import canonical_rows
from deltamatch.kernels.plan_table import PlanTable, TaskList, is_edge_induced_diamond, reads_kept_triangles
from deltamatch.workers.backends import CpuBackend, make_backend
from deltamatch.workers.graph import NormalizedBatch
from deltamatch.workers.protocol import BatchPlan, BatchResult, GraphStats, PatternPlans, SideResult


class GraphReplica:
    """The graph plus patterns on one worker (see module docstring)."""

    clock = staticmethod(time.perf_counter)  # busy-time clock; benchmarks may use CPU time

    def __init__(self, backend: str | CpuBackend = "auto") -> None:
        """`backend`: a kind for `make_backend`, or a backend to run on (the scheduler's graph)."""
        self.backend = make_backend(backend) if isinstance(backend, str) else backend
        self.patterns: dict[int, PatternPlans] = {}
        self.kept: set[int] = set()  # patterns counted whole from the graph's kept triangles
        self.triangle_users: set[int] = set()  # patterns that read the kept triangles (those too)
        self.version = 0
        self.tasks_run = 0
        self.busy_seconds = 0.0

    @property
    def graph(self):
        return self.backend.graph

    @property
    def share_scheme(self) -> str:
        """How this replica's backend cuts a whole-graph count into shares (`CpuBackend.share_scheme`)."""
        return self.backend.share_scheme

    def register(self, pattern_id: int, plans: PatternPlans) -> bool:
        """Add a pattern.  On a backend that `keeps_triangles`, its graph keeps them while a
        pattern reads them (`reads_kept_triangles`).  True when this replica can count the
        pattern's batches whole from them (the diamond): the scheduler may then ask for the counts
        (`BatchPlan.kept_counts`) instead of sending tasks."""
        self.patterns[pattern_id] = plans
        if not (self.backend.keeps_triangles and reads_kept_triangles(plans.batch)):
            return False
        self.triangle_users.add(pattern_id)
        self.backend.keep_triangles(True)
        if not is_edge_induced_diamond(plans.batch):
            return False
        self.kept.add(pattern_id)
        return True

    def unregister(self, pattern_id: int) -> None:
        self.patterns.pop(pattern_id, None)
        self.kept.discard(pattern_id)
        self.triangle_users.discard(pattern_id)
        if self.backend.keeps_triangles and not self.triangle_users:
            self.backend.keep_triangles(False)

    def normalize(self, insert, delete) -> NormalizedBatch:
        """The batch normalized against this replica's graph (replay and local tools; the
        service's scheduler normalizes once, against its own copy)."""
        return self.graph.normalize(insert, delete)

    def clear(self, version: int) -> None:
        """Drop every edge and vertex (a fresh graph on the same backend) as `version`;
        registered patterns stay."""
        self.backend = make_backend(self.backend.name)
        if self.triangle_users:
            self.backend.keep_triangles(True)
        self.version = version

    def apply_only(self, version: int, batch: NormalizedBatch) -> None:
        """Apply without matching (bulk load, rebuild)."""
        self.backend.apply(batch)
        self.version = version

    def execute(self, plan: BatchPlan) -> BatchResult:
        """Run the plan's removal tasks on G_old, apply its batch, run its addition tasks on
        G_new; rows come back in listed form (external ids), at most `plan.list_limit` per
        side and pattern.  Groups in `plan.on_cpu` run on the CPU engine over the backend's
        `host_graph` (a device backend keeps one only once a group is routed to the CPU); on
        a CPU backend that is the backend itself.  A group in `plan.recounts` answers its share of
        a whole-graph count instead (`BatchPlan`).  On a backend with `joint_sides`, a batch that
        both deletes and inserts runs each pattern's two sides as one count instead
        (`joint_sides`), with the same results."""
        start = self.clock()
        removed: dict[int, SideResult] = {}
        added: dict[int, SideResult] = {}
        groups: dict[tuple[int, str], float] = {}
        batch, limit = plan.batch, plan.list_limit
        engines = {False: self.backend}
        if plan.on_cpu and self.backend.name != "cpu":
            engines[True] = CpuBackend(self.backend.host_graph())
        views = {routed: engine.batch_view(batch.changed) for routed, engine in engines.items()}

        def run(pid: int, side: str, tasks: TaskList) -> SideResult:
            routed = (pid, side) in plan.on_cpu and len(engines) > 1
            t0 = self.clock()
            result = self._run_side(pid, tasks, engines[routed], views[routed], limit)
            groups[(pid, side)] = self.clock() - t0
            return result

        def recount(side: str) -> None:
            for pid, recounted in plan.recounts:
                if recounted == side:
                    t0 = self.clock()
                    count = self.static_count(pid, *plan.share) if plan.share else 0
                    (removed if side == "old" else added)[pid] = unlisted(count, self.patterns[pid].batch.k)
                    groups[(pid, side)] = self.clock() - t0

        diamonds = np.zeros(2, dtype=np.int64)  # kept diamonds (destroyed, created) by the update

        def update(part: NormalizedBatch) -> float:
            t0 = self.clock()
            self.backend.apply(part)
            if plan.kept_counts:
                diamonds[:] += self.backend.kept_diamonds()
            return self.clock() - t0

        try:
            if self.joint_sides(plan):
                update_seconds = self._joint_batch(plan, views[False], update, removed, added, groups)
                self.version = plan.version
            else:
                for pid, (old_tasks, _) in plan.tasks.items():
                    removed[pid] = run(pid, "old", old_tasks)
                if any(side == "old" for _, side in plan.recounts):
                    deletions, insertions = batch.halves()
                    update_seconds = update(deletions)
                    recount("old")
                    update_seconds += update(insertions)
                else:
                    update_seconds = update(batch)
                self.version = plan.version
                for pid, (_, new_tasks) in plan.tasks.items():
                    added[pid] = run(pid, "new", new_tasks)
            recount("new")
            for pid in plan.kept_counts:
                if pid not in self.kept:
                    raise RuntimeError(f"pattern {pid}: no kept triangles to count it from")
                k = self.patterns[pid].batch.k
                removed[pid], added[pid] = (unlisted(int(c), k) for c in diamonds)
        finally:
            for routed, view in views.items():
                engines[routed].release(view)
        busy = self.clock() - start
        self.busy_seconds += busy
        run_tasks = sum(a.size + b.size for a, b in plan.tasks.values())
        self.tasks_run += run_tasks
        return BatchResult(plan.version, removed, added, busy, run_tasks, groups, update_seconds)

    def joint_sides(self, plan: BatchPlan) -> bool:
        """Whether `execute` runs the plan's sides jointly: its backend's `joint_sides` is on,
        the batch both deletes and inserts, and every pattern with tasks is edge-induced.  The
        graph then takes the insertions, each pattern's removal and insertion tasks run as one
        count on G_old ∪ I (`BatchView.joint`), and the deletions follow.  Not with groups routed
        to the CPU engine, an old side's recount (read from G_old less the deletions) or kept
        counts (their sides come from the update's halves in the other order: applied insertions
        first, a match holding pairs of both halves would count on both sides)."""
        batch = plan.batch
        return (self.backend.joint_sides and batch.deleted.shape[0] > 0 and batch.inserted.shape[0] > 0
                and not plan.on_cpu and not plan.kept_counts
                and all(side == "new" for _, side in plan.recounts)
                and not any(self.patterns[pid].batch.induced for pid in plan.tasks))

    def _joint_batch(self, plan: BatchPlan, view, update, removed: dict, added: dict, groups: dict) -> float:
        """`execute`'s joint route (`joint_sides`): the insertions, one count of both sides a pattern on
        G_old ∪ I, the deletions (queued behind the last count's launches when nothing is listed).
        Fills `removed`, `added` and `groups`; returns the update's seconds."""
        insertions, deletions = plan.batch.halves(insertions_first=True)
        seconds = []
        joint = view.joint(deletions.deleted.shape[0])

        def count(pid: int, then) -> None:
            old_tasks, new_tasks = plan.tasks[pid]
            t0, before = self.clock(), sum(seconds)
            removed[pid], added[pid] = self._run_sides(pid, old_tasks, new_tasks, joint, plan.list_limit,
                                                       then)
            both = self.clock() - t0 - (sum(seconds) - before)
            # The calibrator's per-side times: the one count's time shared by the sides' tasks.
            share = old_tasks.size / max(1, old_tasks.size + new_tasks.size)
            groups[(pid, "old")], groups[(pid, "new")] = both * share, both * (1 - share)

        joint_sequence(list(plan.tasks), count, lambda: seconds.append(update(insertions)),
                       lambda: seconds.append(update(deletions)), queue_deletions=plan.list_limit <= 0)
        return sum(seconds)

    def _run_sides(self, pid: int, old_tasks: TaskList, new_tasks: TaskList, view, list_limit: int,
                   then=None) -> tuple[SideResult, SideResult]:
        """(removed, added) of one pattern from one joint count of both sides' tasks; `then` as
        `CpuBackend.count` runs it (only when nothing is listed: listing reads the same graph)."""
        plans = self.patterns[pid].batch
        both = old_tasks.followed_by(new_tasks)
        counts = self.backend.count(plans, both, view, False, then)
        cut = old_tasks.size
        return (self._listed(plans, old_tasks, self.backend, view, counts[:cut], False, list_limit),
                self._listed(plans, new_tasks, self.backend, view, counts[cut:], False, list_limit))

    def _run_side(self, pid: int, tasks: TaskList, engine, view, list_limit: int) -> SideResult:
        plans = self.patterns[pid].batch
        if tasks.size == 0:
            return unlisted(0, plans.k)
        counts = engine.count(plans, tasks, view, plans.induced)
        return self._listed(plans, tasks, engine, view, counts, plans.induced, list_limit)

    def _listed(self, plans: PlanTable, tasks: TaskList, engine, view, counts: np.ndarray,
                check_other: bool, list_limit: int) -> SideResult:
        """The side's count with at most `list_limit` of its matches listed: those of the tasks
        with the fewest matches (ties in task order), and only as many rows as are kept.  The
        first tasks of a batch on a large graph can be hub tasks with billions of matches."""
        total = int(counts.sum())
        if list_limit <= 0 or total == 0:
            return unlisted(total, plans.k)
        head = fewest_first(counts, list_limit)
        rows = engine.list(plans, tasks.take(head), view, counts[head], check_other, list_limit)
        ext = self.graph.vertices.external[rows]
        listed = canonical_rows(ext, plans.automorphisms)
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

    def stats(self) -> GraphStats:
        g = self.graph
        return GraphStats(g.num_vertices, g.num_edges, g.max_degree, self.version)


def joint_sequence(keys: list, count, apply_insertions, apply_deletions, queue_deletions: bool) -> None:
    """A joint batch's order of work (`GraphReplica.joint_sides`): `apply_insertions()`, then
    `count(key, then)` for each key in turn on G_old ∪ I, then `apply_deletions()` once, whichever way
    the counts end.  With `queue_deletions` (nothing is listed: listing reads the same graph) the
    last count gets it as `then`, to queue behind its launches, its host time overlapping theirs."""
    apply_insertions()
    pending = [apply_deletions]

    def deletions() -> None:
        if pending:
            pending.pop()()

    last = keys[-1] if keys else None
    try:
        for key in keys:
            count(key, deletions if queue_deletions and key == last else None)
    finally:
        deletions()


def unlisted(count: int, k: int) -> SideResult:
    """A side's exact count with none of its matches listed (truncated when there are any)."""
    return SideResult(count, np.zeros((0, k), dtype=np.int64), count > 0)


def fewest_first(counts: np.ndarray, limit: int) -> np.ndarray:
    """The tasks that hold the first `limit` matches when tasks with matches are ordered by
    their count, ties in task order: that order's shortest prefix reaching `limit` (the
    last task may pass it), or every task with matches.  In O(n + b) passes over b =
    min(limit, the largest count) count bins plus a sort of at most about 2 * `limit` tasks:
    over 600K tasks (a house batch of 10^5 edges has six plans' worth) it took 5 ms here where
    a stable sort of them all took 61 ms.  Where b passes the tasks (a cap of 10^9 took 65 s a
    batch in bins), it sorts the tasks instead."""
    matched = np.flatnonzero(counts > 0)
    bins = min(limit, int(counts.max(initial=0)))
    if bins > 2 * matched.size + 1024:
        head = matched
    else:
        clipped = np.minimum(counts, bins + 1)
        per_count = np.bincount(clipped, minlength=bins + 2)[: bins + 1] * np.arange(bins + 1)
        below = np.cumsum(per_count)  # below[c]: matches in the tasks of 1..c matches
        if below[-1] >= limit:
            top = int(np.searchsorted(below, limit, side="left"))  # the count the prefix ends at
            room = limit - int(below[top - 1])
            head = np.concatenate([np.flatnonzero((counts > 0) & (counts < top)),
                                   np.flatnonzero(counts == top)[: -(-room // top)]])
        else:
            over = np.flatnonzero(counts > bins)
            head = np.flatnonzero((counts > 0) & (counts <= bins))
            if over.size:
                head = np.append(head, over[np.argmin(counts[over])])
    head = head[np.argsort(counts[head], kind="stable")]
    return head[: int(np.searchsorted(np.cumsum(counts[head]), limit, side="left")) + 1]
