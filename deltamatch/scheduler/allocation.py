"""Splitting a batch's tasks between workers.

Policies: `even` (contiguous equal-count slices), `round-robin` (GraphSet-P: blocks of
`block` consecutive tasks dealt to the workers in turn), and three cost-driven ones that
share one allocator and differ only in the cost they feed it: `g2miner` (min(deg u,
deg v)), `pgminer` (the model of `cost.py`) and `calibrated` (that model scaled to
seconds by the online fit).  The allocator is PGMiner's greedy: tasks sorted by cost,
descending, each to the least-loaded worker, kept in a min-heap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from deltamatch.kernels.plan_table import TaskList

POLICIES = ("even", "round-robin", "g2miner", "pgminer", "calibrated")
COST_POLICIES = ("g2miner", "pgminer", "calibrated")
ROUND_ROBIN_BLOCK = 16


@dataclass(frozen=True)
class Allocation:
    """assignment[w] = indices of the tasks worker w runs; predicted load per worker."""

    assignment: list[np.ndarray]
    predicted: np.ndarray


def check_policy(policy: str) -> str:
    """`policy` if known, else a ValueError naming it and the choices."""
    if policy not in POLICIES:
        raise ValueError(f"unknown allocation policy {policy!r}; choose from {', '.join(POLICIES)}")
    return policy


def allocate(tasks: TaskList, num_workers: int, policy: str = "even", cost: np.ndarray | None = None,
             *, block: int = ROUND_ROBIN_BLOCK) -> Allocation:
    """Assign every task to exactly one worker under `policy`; cost policies need `cost`."""
    check_policy(policy)
    if num_workers < 1:
        raise ValueError(f"num_workers must be >= 1, got {num_workers}")
    n = tasks.size
    if policy in COST_POLICIES:
        if cost is None or np.shape(cost) != (n,):
            raise ValueError(f"policy {policy!r} needs cost: one value per task ({n})")
        return greedy(np.asarray(cost, dtype=np.float64), num_workers)
    if policy == "round-robin" and block < 1:
        raise ValueError(f"block must be >= 1, got {block}")
    if num_workers == 1:  # what either policy below gives one worker, without its index arithmetic
        assignment = [np.arange(n)]
    elif policy == "even":
        bounds = np.linspace(0, n, num_workers + 1).astype(np.int64)
        assignment = [np.arange(bounds[w], bounds[w + 1]) for w in range(num_workers)]
    else:
        owner = (np.arange(n) // block) % num_workers
        assignment = [np.flatnonzero(owner == w) for w in range(num_workers)]
    weights = np.ones(n) if cost is None else np.asarray(cost, dtype=np.float64)
    return Allocation(assignment, np.array([weights[a].sum() for a in assignment], dtype=np.float64))


@njit(cache=True)
def _less(loads, counts, a, b):
    if loads[a] != loads[b]:
        return loads[a] < loads[b]
    if counts[a] != counts[b]:
        return counts[a] < counts[b]
    return a < b


@njit(cache=True)
def _sift_down(heap, loads, counts, i):
    n = heap.shape[0]
    while True:
        small = i
        for c in (2 * i + 1, 2 * i + 2):
            if c < n and _less(loads, counts, heap[c], heap[small]):
                small = c
        if small == i:
            return
        heap[i], heap[small] = heap[small], heap[i]
        i = small


@njit(cache=True)
def _greedy(order, cost, loads, owner):
    w_count = loads.shape[0]
    counts = np.zeros(w_count, dtype=np.int64)
    heap = np.arange(w_count)
    for i in range(w_count // 2 - 1, -1, -1):
        _sift_down(heap, loads, counts, i)
    for t in order:
        w = heap[0]
        owner[t] = w
        loads[w] += cost[t]
        counts[w] += 1
        _sift_down(heap, loads, counts, 0)


def greedy(cost: np.ndarray, num_workers: int, initial: np.ndarray | None = None) -> Allocation:
    """PGMiner's allocator: by cost descending (ties: lower index first), each task to the
    least-loaded worker (ties: fewer tasks, then lower worker id), starting from `initial`.

    Each worker's indices come in the order they were assigned (costliest first).
    """
    cost = np.asarray(cost, dtype=np.float64)
    if cost.ndim != 1 or not np.isfinite(cost).all() or (cost < 0).any():
        raise ValueError("cost: must be a 1-d array of finite, non-negative values")
    loads = np.zeros(num_workers) if initial is None else np.array(initial, dtype=np.float64)
    if loads.shape != (num_workers,):
        raise ValueError(f"initial: needs one load per worker ({num_workers})")
    order = np.argsort(-cost, kind="stable")
    owner = np.empty(cost.shape[0], dtype=np.int64)
    _greedy(order, cost, loads, owner)
    ranked = owner[order]
    assignment = [order[ranked == w] for w in range(num_workers)]
    return Allocation(assignment, loads)


def split(allocation: Allocation, sizes: Sequence[int]) -> list[list[np.ndarray]]:
    """Cut one allocation over concatenated task groups back into per-group index arrays:
    result[g][w] indexes group g's tasks that worker w runs."""
    bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    out = []
    for g in range(len(sizes)):
        lo, hi = bounds[g], bounds[g + 1]
        out.append([a[(a >= lo) & (a < hi)] - lo for a in allocation.assignment])
    return out
