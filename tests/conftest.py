"""Shared fixtures: the real-graph directory beside the clone, local scheduler cores, a local Ray."""

from __future__ import annotations

import os
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


@pytest.fixture(scope="session")
def ray_address() -> str:
    """A local Ray for the whole session (4 CPUs, 2 logical GPUs), started on first use."""
    import ray

    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    if not ray.is_initialized():
        ray.init(num_cpus=4, num_gpus=2, include_dashboard=False, _node_ip_address="127.0.0.1",
                 log_to_driver=False)
    return ray.get_runtime_context().gcs_address


class SmallDisk:
    """A small tmpfs at `path` that tests fill up (real ENOSPC) and make room on again."""

    def __init__(self, path: Path):
        self.path = path
        self.filler = path / "filler"

    def fill(self) -> None:
        """Write zeros until the file system refuses with ENOSPC."""
        import errno

        fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            while True:
                os.write(fd, bytes(4096))
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
        finally:
            os.close(fd)

    def make_room(self) -> None:
        self.filler.unlink(missing_ok=True)


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MiB tmpfs mounted at a fresh directory; skips where mount is refused (not root)."""
    import subprocess

    mnt = tmp_path / "tmpfs"
    mnt.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mnt)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs for disk-full tests (needs root): {done.stderr.strip()}")
    yield SmallDisk(mnt)
    subprocess.run(["umount", "-l", str(mnt)], check=False)
