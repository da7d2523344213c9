"""The scheduler's copy of the graph: every batch is normalized once, here.

`Intake` reduces a batch to its effect (dedupe, no-ops, new vertices named in first-seen
order: `DynamicGraph.normalize`) and computes the cost model's features on its own graph,
so neither needs a round trip to a worker.  It changes only when `commit` is called, after
every worker has applied the batch: a batch that fails part-way leaves it at the last
applied version.  `run` matches a batch on this graph itself (the routing's `local` batches),
applying it in the middle; if that fails part-way the graph must be restored (`restore`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from deltamatch.workers.backends import CpuBackend
from deltamatch.workers.features import PairFeatures, pair_features
from deltamatch.workers.graph import DynamicGraph, NormalizedBatch
from deltamatch.workers.protocol import BatchPlan, BatchResult, GraphStats, PatternPlans
from deltamatch.workers.replica import GraphReplica


class Intake:
    """Normalization, features and graph stats for the scheduler (module docstring)."""

    def __init__(self) -> None:
        self.graph = DynamicGraph()
        self.version = 0
        self._totals: tuple[int, int] | None = None  # (vertices, Σ d²) of the graph at `version`
        self._pending: tuple[NormalizedBatch, int, int] | None = None  # a batch's G_new totals

    def normalize(self, insert, delete) -> NormalizedBatch:
        """The batch's effect on the graph at `version` (validated; nothing changes)."""
        return self.graph.normalize(insert, delete)

    def features(self, batch: NormalizedBatch, common: bool) -> PairFeatures:
        """The cost model's features of `batch` (not yet committed); common-neighbour
        counts only when `common`."""
        g = self.graph
        vertices, square_sum = self._totals if self._totals is not None else (g.num_vertices, None)
        feats = pair_features(g, batch, vertices, common, square_sum_old=square_sum)
        self._totals = (vertices, feats.old.square_sum)
        self._pending = (batch, feats.new.num_vertices, feats.new.square_sum)
        return feats

    def commit(self, version: int, batch: NormalizedBatch) -> None:
        """Apply `batch` (normalized against this graph) as `version`."""
        self.graph.apply(batch)
        self._committed(version, batch)

    def run(self, plan: BatchPlan, patterns: Mapping[int, PatternPlans]) -> BatchResult:
        """Run `plan` (every task of its batch) on this graph with the CPU engine, as a worker
        would, and so commit its batch as `plan.version`; a failure part-way may leave the
        batch half applied (the caller restores the graph)."""
        replica = GraphReplica(CpuBackend(self.graph))
        for pid, plans in patterns.items():
            replica.register(pid, plans)
        result = replica.execute(plan)
        self._committed(plan.version, plan.batch)
        return result

    def _committed(self, version: int, batch: NormalizedBatch) -> None:
        self.version = version
        pending, self._pending = self._pending, None
        self._totals = pending[1:] if pending is not None and pending[0] is batch else None

    def clear(self, version: int) -> None:
        """Drop every edge and vertex as `version`."""
        self.graph = DynamicGraph()
        self.version = version
        self._totals = self._pending = None

    def restore(self, external: np.ndarray, edges: np.ndarray, version: int,
                batches: Iterable[tuple[int, np.ndarray, np.ndarray]]) -> None:
        """Rebuild from a snapshot (external ids in internal order, edges, version) and the
        batches logged after it: the same internal ids the workers rebuild."""
        graph = DynamicGraph()
        graph.add_vertices(external)
        graph.apply(graph.normalize(edges, None))
        for v, insert, delete in batches:
            graph.apply(graph.normalize(insert, delete))
            version = v
        self.graph, self.version = graph, version
        self._totals = self._pending = None

    def snapshot(self) -> tuple[np.ndarray, np.ndarray]:
        """(external ids in internal order, edges as external pairs)."""
        return self.graph.vertices.external.copy(), self.graph.edges()

    def stats(self) -> GraphStats:
        g = self.graph
        return GraphStats(g.num_vertices, g.num_edges, g.max_degree, self.version)

