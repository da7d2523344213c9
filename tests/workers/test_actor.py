"""Worker actors: boot ids, versions applied once, rebuilds that reproduce internal ids, restarts."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest
import ray

from deltamatch.scheduler.core import SchedulerCore, WorkerPool
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.scheduler.tasks import NEW, OLD, batch_tasks
from deltamatch.workers.actor import SCRATCH, StaleWorkerError, Worker, make_worker_actors, thread_env
from deltamatch.workers.protocol import BatchPlan
from deltamatch.workers.replica import GraphReplica

pytestmark = pytest.mark.timeout(120)


def _plans():
    core = SchedulerCore(WorkerPool([GraphReplica("cpu")]))
    return core.register(parse_pattern("triangle")).plans


def test_call_with_a_stale_boot_id_is_refused():
    w = Worker("cpu")
    with pytest.raises(StaleWorkerError):
        w.stats("someone-else")
    assert w.stats(w.ping()).edges == 0


def test_execute_of_an_applied_version_answers_from_cache():
    w = Worker("cpu")
    boot = w.ping()
    w.register(boot, 1, _plans())
    batch = w.replica.normalize([[1, 2], [2, 3], [1, 3]], None)
    plans = w.replica.patterns[1].batch
    tasks = {1: (batch_tasks(plans, batch.changed, 0, OLD), batch_tasks(plans, batch.changed, 0, NEW))}
    first = w.execute(boot, BatchPlan(1, batch, tasks, 100))
    again = w.execute(boot, BatchPlan(1, batch, tasks, 100))
    assert again is first and first.added[1].count == 1
    assert w.stats(boot).edges == 3 and w.replica.version == 1


def test_apply_only_ignores_versions_already_applied():
    w = Worker("cpu")
    boot = w.ping()
    w.apply_only(boot, 1, w.replica.normalize([[1, 2]], None))
    w.apply_only(boot, 1, w.replica.normalize([[5, 6]], None))
    assert w.stats(boot).edges == 1


def test_apply_batches_applies_each_new_version_in_order():
    source = GraphReplica("cpu")  # the scheduler's graph: each batch normalized after the last
    batches = []
    for v, edges in enumerate(([[1, 2]], [[2, 3]], [[3, 4]]), start=1):
        batches.append((v, source.normalize(edges, None)))
        source.apply_only(v, batches[-1][1])
    w = Worker("cpu")
    boot = w.ping()
    w.apply_only(boot, *batches[0])
    w.apply_batches(boot, [(1, w.replica.normalize([[7, 8]], None)), *batches[1:]])
    assert w.replica.version == 3 and w.replica.graph.edges().tolist() == [[1, 2], [2, 3], [3, 4]]


def test_scratch_calls_leave_the_replica_untouched():
    w = Worker("cpu")
    w.apply_only(SCRATCH, 1, w.replica.normalize([[1, 2], [2, 3]], None))
    assert w.stats(SCRATCH).edges == 2 and w.stats(w.ping()).edges == 0
    w.drop_scratch()
    assert w.stats(SCRATCH).edges == 0


def test_rebuild_reproduces_vertex_ids_and_edges():
    a = Worker("cpu")
    boot = a.ping()
    batches = [(1, np.array([[9, 4], [4, 7], [7, 9]]), np.zeros((0, 2))),
               (2, np.array([[100, 4]]), np.array([[9, 4]]))]
    a.apply_only(boot, 1, a.replica.normalize(batches[0][1], None))
    external, edges = a.replica.graph.vertices.external.copy(), a.replica.graph.edges()
    a.apply_only(boot, 2, a.replica.normalize(batches[1][1], batches[1][2]))
    b = Worker("cpu")
    old_boot = b.ping()
    new_boot = b.rebuild(external, edges, 1, batches[1:], {})
    assert new_boot != old_boot and b.replica.version == 2
    assert b.replica.graph.vertices.external.tolist() == a.replica.graph.vertices.external.tolist()
    assert b.replica.graph.internal_edges().tolist() == a.replica.graph.internal_edges().tolist()
    nb_a = a.replica.normalize([[55, 9], [7, 100]], [[4, 7]])
    nb_b = b.replica.normalize([[55, 9], [7, 100]], [[4, 7]])
    assert nb_a.changed.tolist() == nb_b.changed.tolist()


def test_killed_actor_restarts_with_a_new_boot_id(ray_address):
    (handle,) = make_worker_actors(1, backend="cpu")
    boot = ray.get(handle.ping.remote())
    ray.get(handle.apply_only.remote(boot, 1, GraphReplica("cpu").normalize([[1, 2]], None)))
    ray.kill(handle, no_restart=False)
    deadline = time.monotonic() + 60
    new = boot
    while new == boot:  # the kill is asynchronous: the old process may answer once more
        assert time.monotonic() < deadline, "the actor was not restarted"
        try:
            new = ray.get(handle.ping.remote(), timeout=30)
        except ray.exceptions.RayActorError:
            time.sleep(0.2)
    with pytest.raises(ray.exceptions.RayTaskError) as err:
        ray.get(handle.stats.remote(boot))
    assert isinstance(err.value.cause, StaleWorkerError)
    assert ray.get(handle.stats.remote(new)).edges == 0
    ray.kill(handle, no_restart=True)


def test_fractional_gpus_share_a_device(ray_address):
    if ray.cluster_resources().get("GPU", 0) < 2:
        pytest.skip("needs 2 (logical) GPUs in the session's Ray")
    handles = make_worker_actors(4, backend="cpu", num_gpus=0.5)  # 4 workers on 2 (logical) GPUs
    boots = ray.get([h.ping.remote() for h in handles], timeout=60)
    assert len(set(boots)) == 4
    ids = sorted(tuple(info["gpu_ids"]) for info in ray.get([h.info.remote() for h in handles]))
    assert ids == [("0",), ("0",), ("1",), ("1",)]  # each on one card, two to a card
    for h in handles:
        ray.kill(h, no_restart=True)


def test_one_gpu_per_worker_gives_each_its_own(ray_address):
    gpus = int(ray.cluster_resources().get("GPU", 0))
    if gpus < 2:
        pytest.skip("needs 2 (logical) GPUs in the session's Ray")
    handles = make_worker_actors(gpus, backend="cpu", num_gpus=1)
    infos = ray.get([h.info.remote() for h in handles], timeout=60)
    assert sorted(tuple(info["gpu_ids"]) for info in infos) == [(str(i),) for i in range(gpus)]
    for h in handles:
        ray.kill(h, no_restart=True)


def test_thread_env_splits_the_cores_unless_the_service_sets_them(monkeypatch):
    monkeypatch.delenv("NUMBA_NUM_THREADS", raising=False)
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(16)))
    assert thread_env(2) == {"NUMBA_NUM_THREADS": "8"} and thread_env(32) == {"NUMBA_NUM_THREADS": "1"}
    monkeypatch.setenv("NUMBA_NUM_THREADS", "3")
    assert thread_env(2) == {}


def test_thread_env_counts_only_the_cores_this_process_may_use():
    """Under taskset or a container's cpuset, os.cpu_count() still sees every core of the host."""
    code = ("import os; from deltamatch.workers.actor import thread_env; os.sched_setaffinity(0, {0}); "
            "print(thread_env(1)['NUMBA_NUM_THREADS'])")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip() == "1"
