"""Tasks: (seed pair, plan) combinations for a batch side or a whole-graph count."""

from __future__ import annotations

import numpy as np
from numba import njit

from deltamatch.kernels.plan_table import PlanTable, TaskList

OLD, NEW = "old", "new"


def batch_tasks(plans: PlanTable, changed: np.ndarray, num_deleted: int, side: str) -> TaskList:
    """Every changed pair (rank = its index in `changed`: deletions first) times every
    plan whose seed kind (edge / non-edge) is the pair's kind in the side's graph.

    Deletions are edges of the old graph and non-edges of the new one; insertions
    the other way round.  Edge-induced plans seed on edges only, so each side then
    runs just its own updates.
    """
    u, v, rank, plan = _batch_tasks(np.ascontiguousarray(changed, dtype=np.int32).reshape(-1, 2), num_deleted,
                                    side == OLD, np.ascontiguousarray(plans.seed_is_edge, dtype=np.bool_))
    return TaskList(u, v, rank, plan)


@njit(cache=True)
def _batch_tasks(changed, num_deleted, old_side, seed_is_edge):
    """(u, v, rank, plan) int32 arrays of `batch_tasks`: plan by plan, pairs in rank order."""
    n = changed.shape[0]
    edges = num_deleted if old_side else n - num_deleted
    total = 0
    for p in range(seed_is_edge.shape[0]):
        total += edges if seed_is_edge[p] else n - edges
    u = np.empty(total, dtype=np.int32)
    v = np.empty(total, dtype=np.int32)
    rank = np.empty(total, dtype=np.int32)
    plan = np.empty(total, dtype=np.int32)
    t = 0
    for p in range(seed_is_edge.shape[0]):
        for i in range(n):
            if ((i < num_deleted) == old_side) == seed_is_edge[p]:
                u[t], v[t], rank[t], plan[t] = changed[i, 0], changed[i, 1], i, p
                t += 1
    return u, v, rank, plan
