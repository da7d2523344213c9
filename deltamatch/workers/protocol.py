"""The messages between the scheduler and its workers: what crosses the actor boundary.

The scheduler prepares each batch once (`NormalizedBatch`: the batch reduced to its effect,
in internal ids, with the vertices it adds) and sends every worker a `BatchPlan`: that
batch plus the worker's share of the tasks.  The worker answers with a `BatchResult`.
Every message is a frozen dataclass of numpy arrays and plain values, so it pickles as is
and a reader sees its fields in one place (cf. SGLang's `io_struct.py`, vLLM's
`SchedulerOutput`).  This module sits at the workers level: workers never import the
scheduler.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from deltamatch.kernels.plan_table import PlanTable, TaskList
from deltamatch.workers.graph import NormalizedBatch


@dataclass(frozen=True)
class PatternPlans:
    """What a worker needs of a pattern: the batch plans and the static plan."""

    batch: PlanTable
    static: PlanTable


@dataclass(frozen=True)
class BatchPlan:
    """One worker's part of one batch: apply `batch` as `version`, running `tasks[pid]` =
    (old-side tasks on G_old, new-side tasks on G_new) and listing at most `list_limit`
    matches per side and pattern.  The groups (pattern, "old" | "new") in `on_cpu` run on
    the CPU engine even where the worker has a device (the scheduler's routing).  The patterns
    in `kept_counts` (no tasks sent) are counted whole, both sides, from the triangles the worker's
    graph keeps (`GraphReplica.register` said it could); never listed.  The groups (pattern,
    side) in `recounts` (no tasks sent) answer, unlisted, this worker's share `share` = (part,
    parts) of a whole-graph count (a formula's; `routing` says when; None: no share, 0): the new
    side's of G_new, the old side's of G_old less the batch's deletions (applied first, then its
    insertions)."""

    version: int
    batch: NormalizedBatch
    tasks: Mapping[int, tuple[TaskList, TaskList]]
    list_limit: int
    on_cpu: frozenset[tuple[int, str]] = frozenset()
    kept_counts: frozenset[int] = frozenset()
    recounts: frozenset[tuple[int, str]] = frozenset()
    share: tuple[int, int] | None = (0, 1)


@dataclass(frozen=True)
class SideResult:
    """One pattern, one side of a batch: matches found (exact) and up to the cap listed."""

    count: int = 0
    rows: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))
    truncated: bool = False


@dataclass(frozen=True)
class BatchResult:
    """A worker's share of one batch's deltas, with the time it spent."""

    version: int
    removed: Mapping[int, SideResult]
    added: Mapping[int, SideResult]
    busy_seconds: float
    tasks_run: int
    group_seconds: Mapping[tuple[int, str], float] = field(default_factory=dict)  # (pattern, side) -> s
    update_seconds: float = 0.0  # applying the batch to the graph (part of busy_seconds)


@dataclass(frozen=True)
class GraphStats:
    """A graph's size as `/v1/cluster` shows it, at `version`."""

    vertices: int
    edges: int
    max_degree: int
    version: int
