"""The worker: one Ray actor per GPU (or N on the CPU) wrapping a `GraphReplica`.

Every call carries the boot id the scheduler last saw from this worker.  A restarted
actor (Ray re-runs the constructor after a crash, `max_restarts`) has a fresh, empty
replica and a new boot id, so its first call fails with `StaleWorkerError` and the
scheduler rebuilds it from snapshot + log before retrying.  Batches carry their
version: a version already applied is not applied again (`execute` answers from its
cache, `apply_only` and `clear` do nothing).  Calls addressed to `SCRATCH` run on a
throw-away replica instead (the warm-up session), leaving the real one untouched.
The methods mirror `GraphReplica`'s, with the boot id first; their messages are in
`workers/protocol.py`.  A worker ends with its owner process (the API, see `lifeline`),
and answers `ping` in a concurrency group of its own, so readiness checks do not wait for
a batch (every other call runs on the one default thread).
"""

from __future__ import annotations

import dataclasses
import os
import uuid
from collections.abc import Iterable

import numpy as np
import ray

from deltamatch.workers.graph import NormalizedBatch
from deltamatch.workers.lifeline import Lifeline, OwnerProcess
from deltamatch.workers.protocol import BatchPlan, BatchResult, GraphStats, PatternPlans
from deltamatch.workers.replica import GraphReplica

SCRATCH = "scratch"  # the boot id that addresses the throw-away replica


class StaleWorkerError(RuntimeError):
    """The worker's state is not the one the caller expects (restarted, or out of step)."""


class Worker:
    """The actor body; also usable in-process (see module docstring)."""

    def __init__(self, backend: str = "auto", owner: OwnerProcess | None = None) -> None:
        Lifeline(owner).exit_with_owner()
        self.backend_kind = backend
        self.replica = GraphReplica(backend)
        self.boot_id = uuid.uuid4().hex
        self.incarnation = 0
        self._last: BatchResult | None = None
        self._scratch: GraphReplica | None = None

    @ray.method(concurrency_group="health")
    def ping(self) -> str:
        """The current boot id (changes whenever the actor restarts)."""
        return self.boot_id

    def _replica(self, boot_id: str) -> GraphReplica:
        if boot_id == SCRATCH:
            if self._scratch is None:
                self._scratch = GraphReplica(self.backend_kind)
            return self._scratch
        if boot_id != self.boot_id:
            raise StaleWorkerError(f"worker {self.boot_id} was asked as {boot_id}: needs a rebuild")
        return self.replica

    def execute(self, boot_id: str, plan: BatchPlan) -> BatchResult:
        """`GraphReplica.execute`, once per version: a version already applied answers
        from the cache (the retry of a call whose answer was lost)."""
        replica = self._replica(boot_id)
        if boot_id == SCRATCH:
            return replica.execute(plan)
        if plan.version <= replica.version:
            if self._last is not None and self._last.version == plan.version:
                return self._last
            raise StaleWorkerError(f"version {plan.version} already applied, no cached result")
        self._last = replica.execute(plan)
        return self._last

    def apply_only(self, boot_id: str, version: int, batch: NormalizedBatch) -> None:
        replica = self._replica(boot_id)
        if version > replica.version:
            replica.apply_only(version, batch)

    def apply_batches(self, boot_id: str, batches: list[tuple[int, NormalizedBatch]]) -> None:
        """`apply_only` of each (version, batch) in order: the batches the scheduler matched
        itself, sent together."""
        for version, batch in batches:
            self.apply_only(boot_id, version, batch)

    def clear(self, boot_id: str, version: int) -> None:
        replica = self._replica(boot_id)
        if version > replica.version:
            replica.clear(version)

    def register(self, boot_id: str, pattern_id: int, plans: PatternPlans) -> bool:
        return self._replica(boot_id).register(pattern_id, plans)

    def unregister(self, boot_id: str, pattern_id: int) -> None:
        self._replica(boot_id).unregister(pattern_id)

    def static_count(self, boot_id: str, pattern_id: int, part: int, parts: int) -> int:
        return self._replica(boot_id).static_count(pattern_id, part, parts)

    def static_list(self, boot_id: str, pattern_id: int, part: int, parts: int) -> np.ndarray:
        return self._replica(boot_id).static_list(pattern_id, part, parts)

    def stats(self, boot_id: str) -> GraphStats:
        return self._replica(boot_id).stats()

    def drop_scratch(self) -> None:
        self._scratch = None

    def rebuild(self, external: np.ndarray, edges: np.ndarray, version: int,
                batches: Iterable[tuple[int, np.ndarray, np.ndarray]],
                plans: dict[int, PatternPlans]) -> str:
        """Replace the replica with snapshot + replayed batches + patterns; returns a new boot id.

        `external` lists the snapshot's external vertex ids in internal order, so the
        rebuilt vertex map (and every internal id) equals the other replicas'.
        """
        replica = GraphReplica(self.backend_kind)
        replica.graph.add_vertices(external)
        replica.apply_only(version, replica.normalize(edges, None))
        for v, insert, delete in batches:
            replica.apply_only(v, replica.normalize(insert, delete))
        for pid, p in plans.items():
            replica.register(pid, p)
        self.replica = replica
        self._last = None
        self.boot_id = uuid.uuid4().hex
        self.incarnation += 1
        return self.boot_id

    def info(self) -> dict:
        """Device, backend, graph stats and counters of this worker.  `gpu_ids` are the node's GPUs
        Ray gave this actor (the card behind its `cuda:0`, since Ray narrows its CUDA_VISIBLE_DEVICES
        to them; fractional shares of one card name the same id); empty outside Ray or with none."""
        info = dict(self.replica.backend.device_info())
        info.update(dataclasses.asdict(self.replica.stats()))
        in_ray = ray.is_initialized()
        info.update(pid=os.getpid(), node=ray.util.get_node_ip_address() if in_ray else None,
                    gpu_ids=ray.get_runtime_context().get_accelerator_ids().get("GPU", []) if in_ray else [],
                    tasks_run=self.replica.tasks_run, busy_seconds=self.replica.busy_seconds,
                    patterns=sorted(self.replica.patterns))
        return info


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity (`taskset`, a container's cpuset), which
    `os.cpu_count()` does not see."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity calls on this platform
        return os.cpu_count() or 1


def thread_env(num_workers: int) -> dict[str, str]:
    """`NUMBA_NUM_THREADS` for each of `num_workers` workers on this node: an equal share of the
    cores this process may use (at least 1), unless it sets the variable (the workers inherit it)."""
    if "NUMBA_NUM_THREADS" in os.environ:
        return {}
    # numba defaults to every core in every worker: N workers then oversubscribe the host, and each
    # parallel region's launch (OpenMP threads spinning, waking) costs milliseconds under contention
    return {"NUMBA_NUM_THREADS": str(max(1, usable_cores() // max(num_workers, 1)))}


def make_worker_actors(num_workers: int, backend: str = "auto", num_gpus: float = 0.0,
                       max_restarts: int = -1, owner: OwnerProcess | None = None,
                       env: dict[str, str] | None = None) -> list:
    """Start `num_workers` worker actors, each asking Ray for `num_gpus` (fractional allowed) and
    with the variables `env` set in its process; Ray restarts each up to `max_restarts` times
    (-1: always)."""
    cls = ray.remote(concurrency_groups={"health": 1})(Worker).options(
        num_cpus=0, num_gpus=num_gpus, max_restarts=max_restarts, max_task_retries=0,
        runtime_env={"env_vars": env} if env else None)
    return [cls.remote(backend, owner) for _ in range(num_workers)]
