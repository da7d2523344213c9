"""Splitting a batch's tasks between workers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from deltamatch.kernels.plan_table import TaskList

POLICIES = ("even", "round-robin")


@dataclass(frozen=True)
class Allocation:
    """assignment[w] = indices of the tasks worker w runs; predicted load per worker."""

    assignment: list[np.ndarray]
    predicted: np.ndarray


def allocate(tasks: TaskList, num_workers: int, policy: str = "even") -> Allocation:
    """Assign every task to exactly one worker under `policy`."""
    n = tasks.size
    if policy == "even":
        bounds = np.linspace(0, n, num_workers + 1).astype(np.int64)
        assignment = [np.arange(bounds[w], bounds[w + 1]) for w in range(num_workers)]
    elif policy == "round-robin":
        assignment = [np.arange(w, n, num_workers) for w in range(num_workers)]
    else:
        raise ValueError(f"unknown allocation policy {policy!r}; choose from {', '.join(POLICIES)}")
    return Allocation(assignment, np.array([a.size for a in assignment], dtype=np.float64))
