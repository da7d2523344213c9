"""The scheduler's logic, free of Ray: versions, patterns, task assignment, delta merging.

`SchedulerCore` drives a `WorkerPool` (local replicas in tests and the CLI, Ray actors
in the service).  For each batch it normalizes the batch once against its own copy of
the graph (`Intake`), turns the changed pairs into tasks (changed pair x shared plan),
splits them between the replicas, sends each its `BatchPlan`, and merges their
`BatchResult`s into one delta per pattern.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from deltamatch.kernels.plan_table import TaskList, has_count_formula
from deltamatch.scheduler.allocation import COST_POLICIES, Allocation, allocate, check_policy, greedy, split
from deltamatch.scheduler.cost import (
    Calibrator,
    PlanShape,
    common_bound,
    g2miner_cost,
    plan_shape,
    predict_task_cost,
)
from deltamatch.scheduler.intake import Intake
from deltamatch.scheduler.names import Encoded, VertexNames, parse_vertex_pairs
from deltamatch.scheduler.patterns import Pattern
from deltamatch.scheduler.plans import compile_plans, per_edge_plans, shared_plans, static_plan
from deltamatch.scheduler.routing import Routing
from deltamatch.scheduler.tasks import NEW, OLD, batch_tasks
from deltamatch.workers.features import PairFeatures
from deltamatch.workers.graph import NormalizedBatch
from deltamatch.workers.protocol import BatchPlan, BatchResult, GraphStats, PatternPlans, SideResult
from deltamatch.workers.replica import GraphReplica, unlisted


class BatchFailed(RuntimeError):
    """A batch that passed validation failed while it was matched or applied (the cause is
    chained): unlike bad input, it may have changed the scheduler's graph or the workers."""


def split_shares(schemes: Sequence[str]) -> list[tuple[int, int] | None]:
    """Shares (part, parts) of a whole-graph count for workers whose backends cut it as `schemes`
    say: every worker's when they all agree; else only the workers of the most common scheme
    (the first to appear among equals) count, each its share of their group, the others None.
    Shares of different schemes need not add up: the CUDA engine cuts by its degree relabelling,
    the CPU formulas by their own vertex order, and a pool can mix them (a GPU worker whose CuPy
    failed runs the CPU engine)."""
    chosen = max(dict.fromkeys(schemes), key=list(schemes).count)
    group = [w for w, s in enumerate(schemes) if s == chosen]
    return [(group.index(w), len(group)) if s == chosen else None for w, s in enumerate(schemes)]


class WorkerPool:
    """The workers as the core sees them: typed calls that reach every replica, answers in
    worker order.  This one calls in-process replicas one after another; the service's
    `RayWorkerPool` calls worker actors in parallel."""

    def __init__(self, replicas: Sequence[GraphReplica]):
        self.replicas = list(replicas)

    def __len__(self) -> int:
        return len(self.replicas)

    def register(self, pattern_id: int, plans: PatternPlans) -> bool:
        """Register on every replica; True when each can count the pattern's batches from its
        graph's kept triangles (`GraphReplica.register`)."""
        return all([r.register(pattern_id, plans) for r in self.replicas])

    def unregister(self, pattern_id: int) -> None:
        for r in self.replicas:
            r.unregister(pattern_id)

    def share_schemes(self) -> list[str]:
        """Each worker's `share_scheme`: how its backend cuts a whole-graph count into shares."""
        return [r.share_scheme for r in self.replicas]

    def shares(self) -> list[tuple[int, int] | None]:
        """Each worker's share (part, parts) of a whole-graph count, None for none (`split_shares`)."""
        return split_shares(self.share_schemes())

    def static_count(self, pattern_id: int) -> int:
        """A whole-graph count, shared between the workers (`shares`)."""
        shares = zip(self.replicas, self.shares(), strict=True)
        return sum(r.static_count(pattern_id, *s) for r, s in shares if s)

    def static_list(self, pattern_id: int) -> list[np.ndarray]:
        """Every current match in listed form, one array per worker's share of the edges."""
        n = len(self.replicas)
        return [r.static_list(pattern_id, i, n) for i, r in enumerate(self.replicas)]

    def execute(self, plans: Sequence[BatchPlan],
                meanwhile: Callable[[], None] | None = None) -> list[BatchResult]:
        """Worker w runs plans[w]; `meanwhile` runs while they work (here: after them, so a
        failed batch never reaches it)."""
        results = [r.execute(p) for r, p in zip(self.replicas, plans, strict=True)]
        if meanwhile is not None:
            meanwhile()
        return results

    def apply_only(self, version: int, batch: NormalizedBatch) -> None:
        for r in self.replicas:
            r.apply_only(version, batch)

    def apply_behind(self, version: int, batch: NormalizedBatch) -> None:
        """Apply without matching, the caller not waiting for it (the scheduler matched the
        batch itself); done before the pool's next call.  In process: at once."""
        self.apply_only(version, batch)

    def clear(self, version: int) -> None:
        for r in self.replicas:
            r.clear(version)


@dataclass
class RegisteredPattern:
    """A pattern with its id, plans, and running total."""

    id: int
    pattern: Pattern
    plans: PatternPlans
    num_plans: int
    total: int
    version: int
    shape: PlanShape | None = None
    kept: bool = False  # every worker counts its batches from kept triangles (BatchPlan.kept_counts)
    recount: RecountTime | None = None  # a pattern with a count formula: its last whole-graph count

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


RECOUNT_MIN_EDGES = 10_000
# The model's predicted work, in reads of the graph's row entries, at which a batch's tasks took as
# long as a recount on the CPU engine (RMAT-14, one worker, batches of 100 and 1,000): 150-220 for
# the house, 20-45 for the diamond, 180-500 for the 4-cycle.  Twice the largest: before a fit, only
# a side its tasks would lose by far is recounted.  (Both sides' times scale alike with the
# workers, which share the tasks and the recount, so the bound does not depend on them.)
COLD_RECOUNT_READS = 1_000


@dataclass
class RecountTime:
    """A whole-graph count of a pattern that has a formula: its wall time over the workers and
    the graph's edges then."""

    seconds: float
    edges: int

    def estimate(self, edges: int) -> float:
        """The seconds of a recount on a graph of `edges` edges: the formulas' passes walk each
        edge's wedges, linear in the edges at a fixed degree mix.  A count of fewer than
        `RECOUNT_MIN_EDGES` edges is scaled as if it had that many, so that from one on a small
        graph (mostly fixed costs) the estimate errs low: a recount it then picks measures
        the real time, while one that erred high would never be measured again."""
        return self.seconds * max(1.0, edges / max(self.edges, RECOUNT_MIN_EDGES))


@dataclass
class PatternDelta:
    """The exact delta of one pattern at one version; listings may be capped."""

    added_count: int
    removed_count: int
    total: int
    added: np.ndarray
    removed: np.ndarray
    truncated: bool


@dataclass(frozen=True)
class GroupCost:
    """One task group (pattern, side) on one worker: PGMiner's predicted cost (0 when the
    policy computed none) against the measured seconds."""

    pattern: int
    side: str
    worker: int
    tasks: int
    predicted: float
    seconds: float


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
    allocation_seconds: float = 0.0  # prediction + sorting/assignment
    intake_seconds: float = 0.0  # names to codes, normalization against the scheduler's graph
    prediction_seconds: float = 0.0  # features + the cost model
    sort_seconds: float = 0.0  # sort + min-heap assignment (or the static split)
    predicted_load: list[float] = field(default_factory=list)  # per worker, in the policy's units
    groups: list[GroupCost] = field(default_factory=list)
    encoded: Encoded | None = None  # the batch in engine ids, and the names it added (for the log)
    workers_seconds: float = 0.0  # sending the plans until the last result is back
    update_seconds: float = 0.0  # the slowest worker's graph update (part of workers_seconds)
    commit_seconds: float = 0.0  # the scheduler's graph update, done while the workers run
    merge_seconds: float = 0.0  # keeping the batch's names, merging and naming the workers' results
    local: bool = False  # matched by the scheduler (`busy_seconds`: its own), the workers only applied it
    recounted: frozenset[tuple[int, str]] = frozenset()  # (pattern, side) counted by a whole-graph recount

    def stages(self) -> dict[str, float]:
        """Where the batch's time went, in seconds, adding up to `elapsed_ms`: intake, allocation
        (features, model, assignment), transport (sending plans and results: the part of the
        workers' round trip the busiest worker was not busy), graph_update and matching (the
        busiest worker's), commit (the part of the scheduler's graph update longer than the
        busiest worker's time, which it overlaps; transport hides a little more of it), merge."""
        busiest = max(self.busy_seconds, default=0.0)
        commit = max(self.commit_seconds - busiest, 0.0)
        return {"intake": self.intake_seconds, "allocation": self.allocation_seconds,
                "transport": max(self.workers_seconds - busiest - commit, 0.0),
                "graph_update": self.update_seconds, "matching": max(busiest - self.update_seconds, 0.0),
                "commit": commit, "merge": self.merge_seconds}

    @property
    def imbalance(self) -> float:
        """Busiest over least busy worker (1.0 = balanced; 0.0 before any work)."""
        busy = self.busy_seconds
        return max(busy) / min(busy) if busy and min(busy) > 0 else 0.0

    @property
    def overhead_share(self) -> tuple[float, float]:
        """(prediction, sorting) as shares of the batch's elapsed time."""
        total = self.elapsed_ms / 1e3
        return (self.prediction_seconds / total, self.sort_seconds / total) if total > 0 else (0.0, 0.0)


class SchedulerCore:
    """Owns batch order and pattern state; see module docstring."""

    clock = staticmethod(time.perf_counter)  # elapsed/overhead clock; benchmarks may use CPU time

    def __init__(self, pool: WorkerPool, *, shared: bool = True, hoist: bool = True, list_limit: int = 10_000,
                 policy: str = "calibrated", on_batch: Callable[[BatchOutcome], None] | None = None,
                 routing: Routing | None = None):
        self.pool = pool
        self.shared = shared
        self.hoist = hoist
        self.list_limit = list_limit
        self.policy = check_policy(policy)
        self.calibrator = Calibrator()
        self._listing: tuple[RegisteredPattern, np.ndarray] | None = None
        self.version = 0
        self.patterns: dict[int, RegisteredPattern] = {}
        self._ids = itertools.count(1)
        self.on_batch = on_batch
        self.last_allocation: Allocation | None = None
        self.names = VertexNames()
        self.intake = Intake()
        self.routing = Routing.from_env() if routing is None else routing

    @property
    def version(self) -> int:
        """Batches applied (a load and a clear count as one).  Setting it drops the listing
        `matches` keeps, which holds for one version only."""
        return self._version

    @version.setter
    def version(self, version: int) -> None:
        self._version = version
        self._listing = None

    # patterns -----------------------------------------------------------------
    def register(self, pattern: Pattern, pattern_id: int | None = None) -> RegisteredPattern:
        """Add a pattern; its total starts at the static count of the current graph."""
        pid = pattern_id if pattern_id is not None else next(self._ids)
        plan_list = (shared_plans if self.shared else per_edge_plans)(pattern, self.hoist)
        plans = PatternPlans(compile_plans(pattern, plan_list),
                             compile_plans(pattern, [static_plan(pattern, self.hoist)]))
        kept = self.pool.register(pid, plans)
        total, recount = self._static_count(pid, plans)
        reg = RegisteredPattern(pid, pattern, plans, len(plan_list), total, self.version,
                                plan_shape(plans.batch), kept, recount)
        self.patterns[pid] = reg
        self._ids = itertools.count(max(pid + 1, next(self._ids)))
        return reg

    def _static_count(self, pattern_id: int, plans: PatternPlans) -> tuple[int, RecountTime | None]:
        """The pattern's whole-graph count and, when it has a formula, the count's time."""
        start = self.clock()
        total = self.pool.static_count(pattern_id)
        if not has_count_formula(plans.static):
            return total, None
        return total, RecountTime(self.clock() - start, self.intake.graph.num_edges)

    def unregister(self, pattern_id: int) -> None:
        self.patterns.pop(pattern_id)
        self.pool.unregister(pattern_id)
        self._listing = None

    def matches(self, pattern_id: int) -> np.ndarray:
        """Every current match in listed form (user names), sorted.  The last pattern's listing
        is kept until the version changes, so paging through one version's matches lists them
        once (a million 4-cycles take 0.4 s to list and sort on one core)."""
        reg = self.patterns[pattern_id]
        if self._listing is not None and self._listing[0] is reg:
            return self._listing[1]
        rows = np.concatenate([r.reshape(-1, reg.pattern.k) for r in self.pool.static_list(pattern_id)])
        if self.names.kind == "str":
            rows = self.names.listed(rows, reg.pattern.automorphisms)
        elif rows.shape[0]:
            rows = rows[np.lexsort(rows.T[::-1])]
        rows.flags.writeable = False  # kept and handed out again: no caller may change it
        self._listing = (reg, rows)
        return rows

    def encode(self, insert, delete) -> Encoded:
        """A user batch (integer or string names, SPEC §1) in engine ids; raises
        `VertexIdError` naming the offending item.  The names are kept by `apply`/`load`."""
        return self.names.encode((parse_vertex_pairs(insert, "insert"), "insert"),
                                 (parse_vertex_pairs(delete, "delete"), "delete"))

    def stats(self) -> GraphStats:
        """The graph's size at the current version."""
        return self.intake.stats()

    def restore(self, external: np.ndarray, edges: np.ndarray, version: int,
                batches: Sequence[tuple[int, np.ndarray, np.ndarray]]) -> None:
        """Bring the scheduler's graph to a snapshot plus the batches logged after it (the
        workers are rebuilt from the same); `version` becomes the last batch's."""
        self.intake.restore(external, edges, version, batches)
        self.version = self.intake.version

    # batches ------------------------------------------------------------------
    def apply(self, insert, delete, list_limit: int | None = None) -> BatchOutcome:
        """Apply one batch atomically as the next version and return its deltas (listed
        in user names), listing at most `list_limit` matches per side and pattern
        (default: the core's limit).  Raises ValueError for bad input, before anything
        changes; any failure past that check is not a ValueError (`BatchFailed` wraps one), and
        may leave the scheduler's graph or the workers holding part of the batch."""
        limit = self.list_limit if list_limit is None else list_limit
        start = self.clock()
        encoded = self.encode(insert, delete)
        batch = self.intake.normalize(*encoded.pairs)
        t_intake = self.clock()
        version = self.version + 1
        changed = batch.changed
        n_del = batch.deleted.shape[0]
        workers = len(self.pool)
        keys = [(pid, side) for pid in self.patterns for side in (OLD, NEW)]
        groups = [batch_tasks(self.patterns[pid].plans.batch, changed, n_del, side) for pid, side in keys]
        t_feats = self.clock()
        recounts: frozenset[tuple[int, str]] = frozenset()
        try:
            feats, model, local = self._predict(batch, keys, groups)
            if local:
                results, times = self._run_local(version, batch, keys, groups, limit)
                picks, predicted_load = [], np.zeros(workers)
            else:
                kept = frozenset(pid for pid, reg in self.patterns.items() if reg.kept and limit <= 0)
                recounts = self._recounts(keys, groups, model, limit, kept, batch)
                emptied = {(pid, side) for pid, side in keys if pid in kept} | recounts
                groups, model = _without_tasks(emptied, keys, groups, model)
                results, times, picks, predicted_load = self._run_workers(version, batch, keys, groups, model,
                                                                          feats, limit, kept, recounts)
        except ValueError as exc:  # the input was valid: this is the engine's, and graphs may hold part
            raise BatchFailed(f"version {version}: {exc}") from exc
        t1, t2, t_send, t_back, commit_seconds = times
        self.version = version
        self.names.commit(encoded)
        outcome = BatchOutcome(version, batch.inserted.shape[0], n_del, batch.ignored, encoded=encoded,
                               local=local, recounted=recounts)
        if not local:
            outcome.groups = self._record(keys, groups, model, picks, results)
        outcome.predicted_load = [float(x) for x in predicted_load]
        outcome.intake_seconds = t_intake - start
        outcome.prediction_seconds = t1 - t_feats
        outcome.sort_seconds = t2 - t1
        outcome.workers_seconds = t_back - t_send
        outcome.update_seconds = max((r.update_seconds for r in results), default=0.0)
        outcome.commit_seconds = commit_seconds
        for pid, reg in self.patterns.items():
            removed = _merge([r.removed[pid] for r in results], limit, reg.pattern.k)
            added = _merge([r.added[pid] for r in results], limit, reg.pattern.k)
            removed, added = self._recounted(reg, removed, added, recounts, results, batch)
            reg.total += added.count - removed.count
            reg.version = version
            aut = reg.pattern.automorphisms
            outcome.deltas[pid] = PatternDelta(
                added.count, removed.count, reg.total, self.names.listed(added.rows, aut),
                self.names.listed(removed.rows, aut), added.truncated or removed.truncated,
            )
        outcome.merge_seconds = self.clock() - t_back
        outcome.busy_seconds = [r.busy_seconds for r in results]
        outcome.allocation_seconds = outcome.prediction_seconds + outcome.sort_seconds
        outcome.elapsed_ms = (self.clock() - start) * 1e3
        if self.on_batch:
            self.on_batch(outcome)
        return outcome

    def _predict(self, batch: NormalizedBatch, keys, groups) -> tuple[PairFeatures | None, list, bool]:
        """(features, the model's cost per group, whether the batch runs locally) under the
        policy and routing.  Eq. 2's common-neighbour counts are the features' costly part: when
        the batch goes local even with each count at its upper bound (`common_bound`), they are
        never computed."""
        if self.policy not in COST_POLICIES or self.routing.mode == "local":  # forced local: no decision
            return None, [None] * len(keys), self.routing.local(None)
        common = any(reg.shape.needs_common for reg in self.patterns.values())
        if common and self.routing.mode == "auto" and self.routing.local_below > 0:
            lean = self.intake.features(batch, False)
            bound = PairFeatures(lean.pairs, common_bound(lean.old), common_bound(lean.new))
            model = self._model(keys, groups, bound)
            if self.routing.local(_total(model)):
                return bound, model, True
        feats = self.intake.features(batch, common)
        model = self._model(keys, groups, feats)
        return feats, model, self.routing.local(_total(model))

    def _model(self, keys, groups, feats: PairFeatures) -> list[np.ndarray]:
        return [self._model_cost(pid, side, t, feats) for (pid, side), t in zip(keys, groups, strict=True)]

    def _recounts(self, keys, groups, model, limit: int, kept: frozenset[int],
                  batch: NormalizedBatch) -> frozenset[tuple[int, str]]:
        """The groups (pattern, side) this count-only batch counts by a whole-graph recount
        (`routing`): a side of a pattern with a formula whose tasks' calibrated seconds (shared by
        the workers) pass the recount's estimate on the graph it counts (the old side's: G_old
        less the deletions).

        Before the calibrator has a fit for the pattern, a side is recounted when its tasks'
        predicted work (row entries scanned and checked, the model's unit) passes
        `COLD_RECOUNT_READS` reads of the graph's 2m row entries: the first batches of a hub-heavy
        stream then skip tasks that cost a hundred recounts (a house batch of 10^4 on RMAT-15:
        275 s by tasks, 0.64 s recounted), and a recount made in error costs one recount."""
        if limit > 0:
            return frozenset()
        mid = self.intake.graph.num_edges - batch.deleted.shape[0]
        edges = {OLD: mid, NEW: mid + batch.inserted.shape[0]}
        out = set()
        for (pid, side), tasks, cost in zip(keys, groups, model, strict=True):
            reg = self.patterns[pid]
            if reg.recount is None or pid in kept or tasks.size == 0:
                continue
            recount = reg.recount.estimate(edges[side])
            seconds = None
            if cost is not None and self.calibrator.fitted(pid):
                seconds = float(self.calibrator.seconds(pid, tasks, cost).sum()) / len(self.pool)
            elif cost is not None:
                seconds = recount * float(cost.sum()) / (COLD_RECOUNT_READS * max(2 * edges[side], 1))
            if self.routing.recounts(seconds, recount):
                out.add((pid, side))
        return frozenset(out)

    def _recounted(self, reg: RegisteredPattern, removed: SideResult, added: SideResult,
                   recounts: frozenset[tuple[int, str]], results: list[BatchResult],
                   batch: NormalizedBatch) -> tuple[SideResult, SideResult]:
        """A pattern's merged sides with its recounted ones turned into deltas: a recounted old
        side holds F(G_old less the deletions), the matches that survive the deletions; a
        recounted new side F(G_new).  Keeps the last recount's time."""
        k = reg.pattern.k
        survivors = reg.total - removed.count
        if (reg.id, OLD) in recounts:
            survivors = removed.count
            removed = unlisted(reg.total - survivors, k)
        for side in (OLD, NEW):
            if (reg.id, side) in recounts:
                edges = self.intake.graph.num_edges - (batch.inserted.shape[0] if side == OLD else 0)
                reg.recount = RecountTime(max(r.group_seconds[(reg.id, side)] for r in results), edges)
        if (reg.id, NEW) in recounts:
            added = unlisted(added.count - survivors, k)
        return removed, added

    def _run_workers(self, version: int, batch: NormalizedBatch, keys, groups, model,
                     feats: PairFeatures | None, limit: int, kept: frozenset[int] = frozenset(),
                     recounts: frozenset[int] = frozenset()):
        """Split the batch's tasks between the workers and run it there, then commit it to the
        scheduler's graph: (results, (costed, assigned, sent, back) clock times, picks, predicted
        load per worker).  The patterns in `kept` (no tasks) are counted by one worker, in turn
        by version, from its kept triangles; those in `recounts` (no new-side tasks) by every
        worker's share of a whole-graph recount."""
        workers = len(self.pool)
        costed = self.policy in COST_POLICIES
        costs = self._policy_costs(keys, groups, model, feats) if costed else []
        t1 = self.clock()
        if costed:
            allocation = greedy(np.concatenate(costs) if costs else np.zeros(0), workers)
            picks = split(allocation, [t.size for t in groups])
            predicted_load = allocation.predicted
        else:
            parts = [allocate(t, workers, self.policy) for t in groups]
            picks = [a.assignment for a in parts]
            predicted_load = sum((a.predicted for a in parts), np.zeros(workers))
            allocation = parts[-1] if parts else Allocation([np.zeros(0, np.int64)] * workers, predicted_load)
        t2 = self.clock()
        self.last_allocation = allocation
        per_worker: list[dict[int, tuple[TaskList, TaskList]]] = [dict() for _ in range(workers)]

        def share(g: int, w: int) -> TaskList:
            # The other policies' indices ascend: all of a group's are the group, in order.
            pick = picks[g][w]
            return groups[g] if not costed and pick.shape[0] == groups[g].size else groups[g].take(pick)

        for i, pid in enumerate(self.patterns):  # groups 2i, 2i+1 = pattern i's old, new side
            for w in range(workers):
                per_worker[w][pid] = (share(2 * i, w), share(2 * i + 1, w))
        on_cpu = self._routes(keys, model, picks, workers)
        committed = []

        def commit() -> None:
            t = self.clock()
            self.intake.commit(version, batch)
            committed.append(self.clock() - t)

        t_send = self.clock()
        # The scheduler's own graph update overlaps the workers' (a batch that then fails restores
        # it: `restore`, the caller's duty, as for any failed batch).
        counter = version % workers
        shares = self.pool.shares() if recounts else [None] * workers
        results = self.pool.execute([BatchPlan(version, batch, per_worker[w], limit, on_cpu[w],
                                               kept if w == counter else frozenset(), recounts, shares[w])
                                     for w in range(workers)], meanwhile=commit)
        return results, (t1, t2, t_send, self.clock(), committed[0]), picks, predicted_load

    def _run_local(self, version: int, batch: NormalizedBatch, keys, groups, limit: int):
        """Match the whole batch on the scheduler's graph (committing it there), then hand it to the
        workers to apply, unwaited: ([result], (costed, assigned, sent, back) clock times)."""
        t1 = self.clock()
        tasks = {pid: (groups[2 * i], groups[2 * i + 1]) for i, pid in enumerate(self.patterns)}
        result = self.intake.run(BatchPlan(version, batch, tasks, limit),
                                 {pid: reg.plans for pid, reg in self.patterns.items()})
        # after the search (a batch that failed there reaches no worker); sending it is its transport
        self.pool.apply_behind(version, batch)
        t_back = self.clock()
        return [result], (t1, t1, t1, t_back, 0.0)

    def _routes(self, keys, model, picks, workers: int) -> list[frozenset[tuple[int, str]]]:
        """Per worker, the groups its share of which the routing sends to the CPU engine
        (judged by the share's predicted cost)."""
        out = []
        for w in range(workers):
            share = [None if m is None else float(m[picks[g][w]].sum()) for g, m in enumerate(model)]
            routed = [key for key, cost in zip(keys, share, strict=True) if self.routing.on_cpu(cost)]
            out.append(frozenset(routed))
        return out

    def _model_cost(self, pid: int, side: str, tasks: TaskList,
                    feats: PairFeatures | None) -> np.ndarray | None:
        """The model's predicted cost of one group's tasks, when features were computed:
        PGMiner's, with neighbour-degree scans under `calibrated` (what its fit scales)."""
        if feats is None:
            return None
        return predict_task_cost(tasks, self.patterns[pid].shape, feats.pairs, feats.side(side),
                                 neighbour_scan=self.policy == "calibrated")

    def _policy_costs(self, keys, groups, model, feats: PairFeatures | None) -> list[np.ndarray]:
        """The cost each task carries into the allocator under the current policy."""
        pairs = zip(keys, groups, model, strict=True)
        if self.policy == "g2miner":
            return [g2miner_cost(t, feats.pairs, feats.side(side)) for (_, side), t, _ in pairs]
        # Groups without tasks (patterns counted from kept triangles) need no fit.
        working = [pid for (pid, _), t in zip(keys, groups, strict=True) if t.size]
        if self.policy == "calibrated" and all(self.calibrator.fitted(pid) for pid in working):
            return [self.calibrator.seconds(pid, t, m) if t.size else np.zeros(0) for (pid, _), t, m in pairs]
        return [m if m is not None else np.ones(t.size) for t, m in zip(groups, model, strict=True)]

    def _record(self, keys, groups, model, picks, results: list[BatchResult]) -> list[GroupCost]:
        """Predicted vs measured per group and worker; feeds the calibrator."""
        out = []
        for g, (pid, side) in enumerate(keys):
            plans = self.patterns[pid].num_plans
            x = np.zeros((len(results), plans))
            n = np.zeros(len(results))
            t = np.zeros(len(results))
            for w, r in enumerate(results):
                idx = picks[g][w]
                if model[g] is not None:
                    x[w] = np.bincount(groups[g].plan[idx], weights=model[g][idx], minlength=plans)
                n[w] = idx.size
                t[w] = r.group_seconds.get((pid, side), 0.0)
                out.append(GroupCost(pid, side, w, int(n[w]), float(x[w].sum()), float(t[w])))
            if model[g] is not None and n.sum() > 0:
                self.calibrator.observe(pid, x, n, t)
        return out

    def clear(self) -> BatchOutcome:
        """Remove every edge as the next version: every total drops to 0 (each pattern's
        delta counts its removed matches; they are not listed) and the graph may take the
        other kind of vertex name afterwards."""
        start = self.clock()
        edges = self.intake.graph.num_edges
        version = self.version + 1
        self.pool.clear(version)
        self.intake.clear(version)
        self.version = version
        self.names.reset()
        outcome = BatchOutcome(version, 0, edges, 0)
        for pid, reg in self.patterns.items():
            empty = np.zeros((0, reg.pattern.k), dtype=np.int64)
            outcome.deltas[pid] = PatternDelta(0, reg.total, 0, empty, empty, reg.total > 0)
            reg.total, reg.version = 0, version
        outcome.elapsed_ms = (self.clock() - start) * 1e3
        if self.on_batch:
            self.on_batch(outcome)
        return outcome

    def load(self, insert) -> BatchOutcome:
        """Bulk-load edges as one version without listing deltas (counts stay exact).

        Into an empty graph this is an apply plus one static count per pattern;
        otherwise it is an ordinary batch with listing off.
        """
        if self.intake.graph.num_edges == 0:
            return self._load_empty(insert)
        return self.apply(insert, None, list_limit=0)

    def _load_empty(self, insert) -> BatchOutcome:
        start = self.clock()
        encoded = self.encode(insert, None)
        batch = self.intake.normalize(*encoded.pairs)
        version = self.version + 1
        self.pool.apply_only(version, batch)
        self.intake.commit(version, batch)
        self.version = version
        self.names.commit(encoded)
        outcome = BatchOutcome(version, batch.inserted.shape[0], 0, batch.ignored, encoded=encoded)
        for pid, reg in self.patterns.items():
            total, reg.recount = self._static_count(pid, reg.plans)
            empty = np.zeros((0, reg.pattern.k), dtype=np.int64)
            outcome.deltas[pid] = PatternDelta(total, 0, total, empty, empty, total > 0)
            reg.total, reg.version = total, version
        outcome.elapsed_ms = (self.clock() - start) * 1e3
        if self.on_batch:
            self.on_batch(outcome)
        return outcome


def _without_tasks(emptied: set[tuple[int, str]], keys, groups: list[TaskList], model: list):
    """The groups and model costs with the groups (pattern, side) in `emptied` left without tasks."""
    if not emptied:
        return groups, model
    none = np.zeros(0, dtype=np.int64)
    groups = [g.take(none) if key in emptied else g for key, g in zip(keys, groups, strict=True)]
    costs = [m[none] if key in emptied and m is not None else m for key, m in zip(keys, model, strict=True)]
    return groups, costs


def _total(model: list[np.ndarray]) -> float:
    """A batch's predicted cost: every group's."""
    return float(sum(m.sum() for m in model))


def _merge(parts: list[SideResult], limit: int, k: int) -> SideResult:
    count = sum(p.count for p in parts)
    rows = [p.rows.reshape(-1, k) for p in parts if p.rows.size]
    listed = np.concatenate(rows) if rows else np.zeros((0, k), dtype=np.int64)
    if listed.shape[0]:
        listed = listed[np.lexsort(listed.T[::-1])][:limit]
    return SideResult(count, listed, listed.shape[0] < count)
