"""The CPU backend (workers/backends.py): whole-graph counts with and without formulas."""

from __future__ import annotations

import numpy as np
import pytest

from deltamatch.bench.rmat import rmat_edges
from deltamatch.kernels.cpu_engine import EngineOptions
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.scheduler.plans import compile_plans, static_plan
from deltamatch.workers.backends import CpuBackend


@pytest.mark.parametrize("name", ["diamond", "4-cycle", "house", "house-induced"])
def test_static_counts_are_the_same_with_and_without_formulas(name: str) -> None:
    pattern = parse_pattern(name.removesuffix("-induced"), induced=name.endswith("-induced"))
    table = compile_plans(pattern, [static_plan(pattern)])
    counts = []
    for formulas in (True, False):
        backend = CpuBackend(options=EngineOptions(formulas=formulas))
        backend.apply(backend.graph.normalize(rmat_edges(8).astype(np.int64), []))
        counts.append([backend.static_count(table, part, 2) for part in range(2)])
    assert sum(counts[0]) == sum(counts[1]) > 0
