"""Task-cost prediction (PGMiner's model, G2Miner's estimate) and its online calibration.

A task extends a seed pair (u, v) through positions 2..k-1 of its plan.  PGMiner
estimates the candidate set of each position from the seed's degrees, the graph's
average degree d̄ and vertex count N, and the plan's structure:

* Eq. 1, position adjacent to at most one seed endpoint, to q further matched positions:
  C = N · (d_u/N)^[adj u] · (d_v/N)^[adj v] · (d̄/N)^q
* Eq. 2, position adjacent to both seed endpoints: C = |N(u) ∩ N(v)| · (d̄/N)^q

Each candidate then survives the symmetric order with probability π = a! b! / (a+b+1)!
(a lower and b upper bounds: the chance that a random value falls between them).  The
predicted cost is the work the engine does: at position l it scans the smallest
adjacency row among l's matched neighbours (d_u, d_v or d̄), bounded by the symmetric
order, and tests each scanned vertex against l's other constraints, once per partial
match reaching l: cost = 1 + Σ_l M_{l-1} · scan_l · π_l · (1 + checks_l), with
M_1 = 1 and M_l = M_{l-1} · C_l · π_l.  A seed that fails the plan's seed constraint
costs 1.  Per task that is O(k²) arithmetic on features that cost O(d log d) to gather.

`Calibrator` (beyond the paper) fits measured seconds per worker and task group to the
predicted costs of the tasks each worker ran: seconds ≈ Σ_p s_p · cost_p + c · tasks + e,
one scale per plan, over a window of recent batches (non-negative least squares).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from math import factorial

import numpy as np
from numba import njit

from deltamatch.kernels.plan_table import PlanTable, TaskList, reverses_seed
from deltamatch.workers.features import SideFeatures


@dataclass(frozen=True)
class PlanShape:
    """The model's view of each plan, arrays [plans, k] indexed by position (>= 2 used)."""

    adj0: np.ndarray  # bool: adjacent to seed position 0
    adj1: np.ndarray  # bool: adjacent to seed position 1
    rest: np.ndarray  # int: adjacent earlier non-seed positions (the exponent q)
    checks: np.ndarray  # int: tests per scanned candidate besides the anchor row
    survive: np.ndarray  # float: probability a candidate passes the symmetric order
    seed_cmp: np.ndarray  # int8[plans]: cmp[p, 1, 0]
    seed_swap: np.ndarray  # int8[plans]: PlanTable.seed_swap (both engines reverse such seeds)

    @property
    def k(self) -> int:
        return int(self.adj0.shape[1])

    @property
    def needs_common(self) -> bool:
        """Whether Eq. 2 enters the cost: a non-last position adjacent to both seeds."""
        return bool((self.adj0 & self.adj1)[:, 2:self.k - 1].any())


def plan_shape(plans: PlanTable) -> PlanShape:
    """Read the structure the model uses off a compiled plan table."""
    n, k = plans.order.shape
    adj0 = np.zeros((n, k), dtype=np.bool_)
    adj1 = np.zeros((n, k), dtype=np.bool_)
    rest = np.zeros((n, k), dtype=np.int64)
    checks = np.zeros((n, k), dtype=np.int64)
    survive = np.ones((n, k), dtype=np.float64)
    for p in range(n):
        for level in range(2, k):
            conn = plans.conn[p, level, :level] == 1
            cmp = plans.cmp[p, level, :level]
            adj0[p, level], adj1[p, level] = conn[0], conn[1]
            rest[p, level] = int(conn[2:].sum())
            tested = level if plans.induced else int(conn.sum())
            checks[p, level] = tested - 1
            a, b = int((cmp == 1).sum()), int((cmp == -1).sum())
            survive[p, level] = factorial(a) * factorial(b) / factorial(a + b + 1)
    return PlanShape(adj0, adj1, rest, checks, survive, plans.cmp[:, 1, 0].astype(np.int8),
                     plans.seed_swap.astype(np.int8))


def _check_ranks(tasks: TaskList, pairs: np.ndarray) -> None:
    r = tasks.rank
    if tasks.size and (r.min() < 0 or r.max() >= pairs.shape[0]):
        raise ValueError("tasks: every task needs a batch rank within the batch's changed pairs")


def predict_task_cost(tasks: TaskList, shape: PlanShape, pairs: np.ndarray,
                      feats: SideFeatures, neighbour_scan: bool = False) -> np.ndarray:
    """PGMiner's predicted cost of every task (float64[T]; see the module docstring).

    With `neighbour_scan` a matched non-seed vertex's row is taken to be as long as the
    mean degree at the end of an edge (Σd²/Σd) instead of d̄: the vertices a search
    reaches are neighbours, and on skewed graphs those have far more than d̄ edges.
    """
    _check_ranks(tasks, pairs)
    davg = float(feats.avg_degree)
    dscan = float(feats.neighbour_degree) if neighbour_scan else davg
    out = np.empty(tasks.size)
    _task_costs(tasks.u, tasks.rank, tasks.plan, pairs, feats.deg0, feats.deg1, feats.common,
                float(max(feats.num_vertices, 1)), davg, dscan,
                shape.adj0, shape.adj1, shape.rest, shape.checks, shape.survive, shape.seed_cmp,
                shape.seed_swap, tasks.v, out)
    return out


@njit(cache=True)
def _task_costs(u, rank, plan, pairs, deg0, deg1, common, n, davg, dscan, adj0, adj1, rest, checks, survive,
                seed_cmp, seed_swap, v, out):
    """predict_task_cost's loop: Eq. 1 / Eq. 2 per position, one task at a time, each seed the
    way round the engines run it (`PlanTable.seed_swap`)."""
    k = adj0.shape[1]
    for t in range(u.shape[0]):
        r = rank[t]
        flip = u[t] != pairs[r, 0]
        du = float(deg1[r] if flip else deg0[r])
        dv = float(deg0[r] if flip else deg1[r])
        p = plan[t]
        if reverses_seed(seed_swap[p], du, dv):
            du, dv = dv, du
        if (seed_cmp[p] == -1 and v[t] > u[t]) or (seed_cmp[p] == 1 and v[t] < u[t]):
            out[t] = 1.0
            continue
        partial = 1.0
        cost = 1.0
        for level in range(2, k):
            a, b, q = adj0[p, level], adj1[p, level], rest[p, level]
            scan = np.inf
            if a:
                scan = du
            if b:
                scan = min(scan, dv)
            if q > 0:
                scan = min(scan, dscan)
            cost += partial * scan * survive[p, level] * (1 + checks[p, level])
            if level < k - 1:
                size = float(common[r]) if a and b else n * (du / n if a else 1.0) * (dv / n if b else 1.0)
                partial = partial * (size * (davg / n) ** q) * survive[p, level]
        out[t] = cost


def common_bound(feats: SideFeatures) -> SideFeatures:
    """`feats` with every common-neighbour count replaced by its upper bound min(d_u, d_v): the
    predicted cost grows with the counts, so a cost predicted from these bounds every cost the
    true counts give, without computing them."""
    return replace(feats, common=np.minimum(feats.deg0, feats.deg1))


def g2miner_cost(tasks: TaskList, pairs: np.ndarray, feats: SideFeatures) -> np.ndarray:
    """G2Miner's estimate: min(deg u, deg v) in the side's graph (float64[T]), looked up by the
    task's batch rank (either way round)."""
    _check_ranks(tasks, pairs)
    return np.minimum(feats.deg0[tasks.rank], feats.deg1[tasks.rank]).astype(np.float64)


class Calibrator:
    """Online fit of seconds = Σ_p scale_p · predicted_p + overhead · tasks + fixed, per key.

    `observe` takes one task group as every worker ran it (a row per worker); the fit
    uses the last `window` rows per key, shrunk toward one common scale (as strongly as
    `prior` rows would) so that plans seen rarely keep a sane value.
    """

    def __init__(self, window: int = 256, prior: float = 1.0) -> None:
        self.window = window
        self.prior = prior
        self._rows: dict[object, deque] = {}
        self._fit: dict[object, tuple[np.ndarray, float]] = {}
        self._stale: set = set()

    def observe(self, key, predicted_by_plan: np.ndarray, tasks: np.ndarray, seconds: np.ndarray) -> None:
        """Record rows: predicted_by_plan [W, plans] (sum of predicted cost per plan),
        tasks [W] (tasks run), seconds [W] (measured) for one group, then refit `key`."""
        x = np.asarray(predicted_by_plan, dtype=np.float64)
        tasks = np.asarray(tasks, dtype=np.float64)
        seconds = np.asarray(seconds, dtype=np.float64)
        if x.ndim != 2 or tasks.shape != (x.shape[0],) or seconds.shape != (x.shape[0],):
            raise ValueError("observe: predicted_by_plan [W, plans], tasks [W], seconds [W] must agree")
        rows = self._rows.setdefault(key, deque(maxlen=self.window))
        for w in range(x.shape[0]):
            rows.append((x[w], tasks[w], seconds[w]))
        self._stale.add(key)

    def _refit(self, key) -> None:
        """Fit `key` from its rows (done when the fit is next needed, not per observation)."""
        self._stale.discard(key)
        rows = list(self._rows[key])
        x = np.stack([r[0] for r in rows])
        n = np.array([r[1] for r in rows])
        t = np.array([r[2] for r in rows])
        busy = x.sum(axis=1) > 0
        if not busy.any() or t[busy].sum() <= 0:
            return
        common = t[busy].sum() / x[busy].sum()
        plans = x.shape[1]
        # Columns: one per plan (scaled to seconds by `common`), per-task overhead, fixed.
        design = np.column_stack([x * common, n, np.ones_like(n)])
        # The prior weighs as much as `prior` average rows.
        weight = np.sqrt(self.prior * max(float((design[:, :plans] ** 2).mean(axis=0).mean()), 1e-30))
        prior_rows = np.zeros((plans, plans + 2))
        prior_rows[:, :plans] = np.eye(plans) * weight
        from scipy.optimize import nnls  # the library path never fits: scipy stays optional there

        coef, _ = nnls(np.vstack([design, prior_rows]), np.concatenate([t, np.full(plans, weight)]))
        scale = np.maximum(coef[:plans], 0.05) * common
        self._fit[key] = (scale, float(coef[plans]))

    def _current(self, key) -> tuple[np.ndarray, float]:
        if key in self._stale:
            self._refit(key)
        return self._fit[key]

    def fitted(self, key) -> bool:
        """Whether `key` has a fit (its rows hold some measured work)."""
        if key in self._stale:
            self._refit(key)
        return key in self._fit

    def seconds(self, key, tasks: TaskList, predicted: np.ndarray) -> np.ndarray:
        """Calibrated seconds of each task; raises KeyError before `key` has a fit."""
        scale, overhead = self._current(key)
        return scale[tasks.plan] * predicted + overhead

    def scales(self, key) -> tuple[np.ndarray, float]:
        """(per-plan seconds per predicted unit, seconds per task) of `key`'s current fit."""
        scale, overhead = self._current(key)
        return scale.copy(), overhead
