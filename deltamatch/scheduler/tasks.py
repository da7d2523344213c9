"""Tasks: (seed pair, plan) combinations for a batch side or a whole-graph count."""

from __future__ import annotations

import numpy as np

from deltamatch.kernels.plan_table import PlanTable, TaskList

OLD, NEW = "old", "new"


def batch_tasks(plans: PlanTable, changed: np.ndarray, num_deleted: int, side: str) -> TaskList:
    """Every changed pair (rank = its index in `changed`: deletions first) times every
    plan whose seed kind (edge / non-edge) is the pair's kind in the side's graph.

    Deletions are edges of the old graph and non-edges of the new one; insertions
    the other way round.  Edge-induced plans seed on edges only, so each side then
    runs just its own updates.
    """
    ranks = np.arange(changed.shape[0], dtype=np.int32)
    is_edge = (ranks < num_deleted) if side == OLD else (ranks >= num_deleted)
    us, vs, rs, ps = [], [], [], []
    for p in range(plans.order.shape[0]):
        pick = np.flatnonzero(is_edge == plans.seed_is_edge[p])
        us.append(changed[pick, 0])
        vs.append(changed[pick, 1])
        rs.append(ranks[pick])
        ps.append(np.full(pick.shape[0], p, dtype=np.int32))
    return _task_list(us, vs, rs, ps)


def _task_list(us, vs, rs, ps) -> TaskList:
    def cat(parts, dtype):
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)

    return TaskList(cat(us, np.int32), cat(vs, np.int32), cat(rs, np.int32), cat(ps, np.int32))
