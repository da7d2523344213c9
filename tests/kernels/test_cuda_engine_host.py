"""`cuda_engine`'s steps that run on the host alone (no GPU needed)."""

from __future__ import annotations

import numpy as np

from deltamatch.kernels import cuda_engine
from deltamatch.kernels.plan_table import TaskList


def test_host_heavy_first_orders_by_decreasing_lesser_degree_ties_in_task_order() -> None:
    rng = np.random.default_rng(3)
    degree = rng.integers(0, 8, size=50).astype(np.int32)  # few degrees: many ties
    n = 500
    tasks = TaskList(rng.integers(0, 50, n).astype(np.int32), rng.integers(0, 50, n).astype(np.int32),
                     np.arange(n, dtype=np.int32), np.zeros(n, dtype=np.int32))
    lesser = np.minimum(degree[tasks.u], degree[tasks.v])
    want = np.lexsort((np.arange(n), -lesser))  # by decreasing lesser degree, then task index
    np.testing.assert_array_equal(cuda_engine.host_heavy_first(degree, tasks), want)
