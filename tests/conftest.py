"""Shared fixtures: the real-graph directory beside the clone, and local scheduler cores."""

from __future__ import annotations

from pathlib import Path

import pytest

from deltamatch.scheduler.core import SchedulerCore, WorkerPool
from deltamatch.workers.replica import GraphReplica

DATA_DIR = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """`../shared/data` beside the repository; tests that need it skip without it."""
    if not DATA_DIR.is_dir():
        pytest.skip(f"real graphs not present at {DATA_DIR}")
    return DATA_DIR


@pytest.fixture
def make_core():
    """Factory of Ray-free schedulers: make_core(replicas=1, shared=True, **SchedulerCore kwargs)."""

    def build(replicas: int = 1, shared: bool = True, **kwargs) -> SchedulerCore:
        return SchedulerCore(
            WorkerPool([GraphReplica("cpu") for _ in range(replicas)]), shared=shared, **kwargs
        )

    return build
