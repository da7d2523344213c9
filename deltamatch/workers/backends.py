"""Compute backends a replica runs on: the CPU engine here, the CUDA engine when present."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from deltamatch.kernels import cpu_engine
from deltamatch.kernels.cpu_formulas import formula_count
from deltamatch.kernels.plan_table import BatchView, PlanTable, TaskList
from deltamatch.workers.features import COMMON_SAMPLE, PairFeatures, pair_features
from deltamatch.workers.graph import DynamicGraph, NormalizedBatch


class CpuBackend:
    """Host graph + numba engine.  The CUDA backend offers the same methods.  Given a
    `graph`, it runs the engine on that graph (a device backend's `host_graph`)."""

    name = "cpu"
    keeps_triangles = False  # the CUDA backend's graph may keep its edges' triangles (`keep_triangles`)

    def __init__(self, graph: DynamicGraph | None = None,
                 options: cpu_engine.EngineOptions | None = None, joint_sides: bool = False) -> None:
        """`joint_sides`: let a replica count a batch's two sides in one run
        (`GraphReplica.joint_sides`); off, since the CPU engine runs a joint batch's sides one after
        the other anyway (`cpu_engine._joint_sides`) and the update then takes two passes."""
        self.graph = DynamicGraph() if graph is None else graph
        self.options = options  # None: EngineOptions.from_env() at each count
        self.joint_sides = joint_sides

    @property
    def share_scheme(self) -> str:
        """How `static_count` cuts a whole-graph count into shares: the shares part::parts of
        backends with equal schemes add up to the count, of unequal ones need not."""
        options = self.options if self.options is not None else cpu_engine.EngineOptions.from_env()
        return f"cpu formulas={options.formulas}"

    def device_info(self) -> dict:
        return {"backend": self.name, "device": "cpu", "gpu_name": None, "memory_bytes": None,
                "share_scheme": self.share_scheme}

    def apply(self, batch: NormalizedBatch) -> None:
        self.graph.apply(batch)

    def host_graph(self) -> DynamicGraph:
        """The graph the CPU engine runs on: this backend's own."""
        return self.graph

    def pair_features(self, batch: NormalizedBatch, vertices_old: int, common: bool = True,
                      sample: int = COMMON_SAMPLE, square_sum_old: int | None = None) -> PairFeatures:
        """`features.pair_features` of `batch` (not yet applied) on this backend's graph."""
        return pair_features(self.graph, batch, vertices_old, common, sample, square_sum_old)

    def batch_view(self, pairs: np.ndarray) -> BatchView:
        return self.graph.batch_view(pairs)

    def release(self, view: BatchView) -> None:
        self.graph.release(view)

    def count(self, plans: PlanTable, tasks: TaskList, batch: BatchView, check_other: bool,
              then: Callable[[], None] | None = None) -> np.ndarray:
        """Matches found by each task; `then`, when given, runs once the count is done (a device
        backend runs it while its kernels do: `CudaBackend.count`)."""
        counts = cpu_engine.count_tasks(self.graph.view(), plans, tasks, batch, check_other,
                                        options=self.options)
        if then is not None:
            then()
        return counts

    def list(self, plans: PlanTable, tasks: TaskList, batch: BatchView, counts: np.ndarray,
             check_other: bool, limit: int | None = None) -> np.ndarray:
        return cpu_engine.list_tasks(self.graph.view(), plans, tasks, batch, counts, check_other, limit)

    def static_count(self, plans: PlanTable, part: int, parts: int) -> int:
        """Share part::parts of a whole-graph count (a static plan): by formula where the pattern
        has one and `EngineOptions.formulas` is on (`cpu_formulas`), else the matches found from
        the edges part::parts."""
        options = self.options if self.options is not None else cpu_engine.EngineOptions.from_env()
        if options.formulas:
            count = formula_count(self.graph.view(), plans, part, parts)
            if count is not None:
                return count
        tasks = TaskList.static(self.graph.internal_edges()[part::parts])
        view = self.graph.batch_view(np.zeros((0, 2), dtype=np.int32))
        try:
            counts = cpu_engine.count_tasks(self.graph.view(), plans, tasks, view, options=self.options)
            return int(counts.sum())
        finally:
            self.graph.release(view)


def make_backend(kind: str = "auto"):
    """'cpu', 'cuda', or 'auto' (CUDA when a device is visible, else CPU)."""
    if kind not in ("auto", "cpu", "cuda"):
        raise ValueError(f"unknown backend {kind!r}: use auto, cpu or cuda")
    if kind == "cpu":
        return CpuBackend()
    try:
        from deltamatch.workers.cuda_backend import CudaBackend, cuda_available
    except ImportError:
        if kind == "cuda":
            raise
        return CpuBackend()
    if kind == "cuda" or cuda_available():
        return CudaBackend()
    return CpuBackend()
