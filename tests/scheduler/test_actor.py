"""The scheduler actor with real worker actors: answers equal a local core, recovery from worker
kills (idle and mid-batch), restart from snapshot + log, rejected batches change nothing."""

from __future__ import annotations

import time

import numpy as np
import pytest
import ray

from deltamatch.kernels.reference import reference_matches
from deltamatch.scheduler.actor import BEHIND_BATCHES, RayWorkerPool, make_scheduler_actor
from deltamatch.scheduler.batch_log import LogWriteError
from deltamatch.scheduler.core import SchedulerCore
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.scheduler.plans import compile_plans, shared_plans, static_plan
from deltamatch.scheduler.routing import Routing
from deltamatch.workers.actor import make_worker_actors
from deltamatch.workers.graph import NormalizedBatch
from deltamatch.workers.protocol import PatternPlans

pytestmark = pytest.mark.timeout(240)


def _scheduler(path, **options):
    sched = make_scheduler_actor(str(path), num_workers=2, backend="cpu", **options)
    ray.get(sched.start.remote())
    return sched


def _random_batch(rng, n: int, size: int) -> np.ndarray:
    e = rng.integers(0, n, (size, 2))
    return e[e[:, 0] != e[:, 1]]


@pytest.fixture(scope="module")
def shared(ray_address, tmp_path_factory):
    sched = _scheduler(tmp_path_factory.mktemp("sched"))
    yield sched
    ray.kill(sched)


def test_answers_equal_a_local_core_and_the_oracle(shared, make_core):
    local = make_core(replicas=1)
    specs = [("triangle", False), ("4-cycle", False), ("diamond", True)]
    ids = [ray.get(shared.register.remote(name, induced))["id"] for name, induced in specs]
    for name, induced in specs:
        local.register(parse_pattern(name, induced))
    rng = np.random.default_rng(5)
    edges: set = set()
    for b in range(6):
        ins = _random_batch(rng, 14, 12)
        dele = np.array(sorted(edges)[:3]) if b % 2 and edges else np.zeros((0, 2), np.int64)
        answer, events = ray.get(shared.apply.remote(ins, dele))
        want = local.apply(ins, dele)
        edges = (edges - {tuple(sorted(e)) for e in dele.tolist()}) | {tuple(sorted(e)) for e in ins.tolist()}
        for pid, (name, induced) in zip(ids, specs, strict=True):
            d = answer["deltas"][str(pid)]
            w = want.deltas[list(local.patterns)[ids.index(pid)]]
            assert (d["added"], d["removed"], d["total"]) == (w.added_count, w.removed_count, w.total)
            assert events["patterns"][pid]["added"].tolist() == w.added.tolist()
            p = parse_pattern(name, induced)
            assert d["total"] == len(reference_matches(edges, p.edges, p.k, induced))


def test_rejected_batch_changes_nothing(shared):
    before = ray.get(shared.cluster.remote())["graph"]
    with pytest.raises(ValueError, match="self-loop"):
        ray.get(shared.apply.remote(np.array([[1000, 1001]]), np.array([[3, 3]])))
    assert ray.get(shared.cluster.remote())["graph"] == before


def test_worker_killed_between_batches_is_rebuilt(shared, make_core):
    reg = ray.get(shared.register.remote("triangle"))
    handles = ray.get(shared.worker_handles.remote())
    ray.kill(handles[0], no_restart=False)
    answer, _ = ray.get(shared.apply.remote(np.array([[200, 201], [201, 202], [200, 202]]), None))
    assert answer["deltas"][str(reg["id"])]["added"] == 1
    recount = ray.get(shared.register.remote("triangle"))
    assert recount["total"] == answer["deltas"][str(reg["id"])]["total"]
    assert ray.get(shared.cluster.remote())["workers"][0]["rebuilds"] == 1


def test_worker_that_ray_will_not_restart_is_replaced_by_a_new_actor(shared):
    reg = ray.get(shared.register.remote("triangle"))
    handles = ray.get(shared.worker_handles.remote())
    ray.kill(handles[1], no_restart=True)  # dead for good: only a new actor can take its share
    answer, _ = ray.get(shared.apply.remote(np.array([[300, 301], [301, 302], [300, 302]]), None))
    assert answer["deltas"][str(reg["id"])]["added"] == 1
    assert ray.get(shared.health.remote()) == {"ready": True, "detail": None}


def test_worker_killed_mid_batch_completes_the_batch_once(ray_address, tmp_path, make_core):
    sched = _scheduler(tmp_path)
    local = make_core(replicas=1)
    rng = np.random.default_rng(1)
    base = _random_batch(rng, 1000, 20000)
    # long enough on the workers that the kill lands mid-batch (about 1.5 s of the CPU engine here: at
    # 20,000 edges, 0.4 s since the fused last levels, the kill sometimes came after the workers' part)
    heavy = _random_batch(rng, 1000, 40000)
    pid = ray.get(sched.register.remote("4-cycle"))["id"]
    local.register(parse_pattern("4-cycle"))
    ray.get(sched.load.remote(base))
    local.load(base)
    ref = sched.apply.remote(heavy, None, "heavy")
    deadline = time.monotonic() + 30
    while ray.get(sched.cluster.remote())["in_flight_version"] != 2:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    time.sleep(0.2)
    handles = ray.get(sched.worker_handles.remote())
    old_pid = ray.get(sched.cluster.remote())["workers"][1]["pid"]
    ray.kill(handles[1], no_restart=False)
    assert ray.get(sched.cluster.remote())["in_flight_version"] == 2  # killed while the batch ran
    answer, _ = ray.get(ref)
    want = local.apply(heavy, None).deltas[1]
    assert answer["version"] == 2
    got = answer["deltas"][str(pid)]
    assert (got["added"], got["total"]) == (want.added_count, want.total)
    info = ray.get(sched.cluster.remote())
    assert info["workers"][1]["rebuilds"] == 1 and info["graph"]["version"] == 2
    assert info["workers"][1]["pid"] != old_pid  # the restarted process is reported
    assert ray.get(sched.register.remote("4-cycle"))["total"] == want.total  # a from-scratch recount
    again, events = ray.get(sched.apply.remote(heavy, None, "heavy"))
    assert again["version"] == 2 and events == {}
    ray.kill(sched)


def test_failed_log_write_rolls_the_batch_back_everywhere(ray_address, small_disk):
    sched = _scheduler(small_disk.path / "data")
    tri = ray.get(sched.register.remote("triangle"))["id"]
    rng = np.random.default_rng(4)
    first, _ = ray.get(sched.apply.remote(_random_batch(rng, 40, 300), None, "b1"))
    total = first["deltas"][str(tri)]["total"]
    small_disk.fill()
    with pytest.raises(LogWriteError):
        ray.get(sched.apply.remote(_random_batch(rng, 40, 2000), None, "b2"))
    health = ray.get(sched.health.remote())
    assert not health["ready"] and "not writable" in health["detail"]
    assert ray.get(sched.cluster.remote())["graph"]["version"] == 1
    assert ray.get(sched.pattern.remote(tri))["total"] == total
    small_disk.make_room()
    assert ray.get(sched.health.remote())["ready"]
    answer, _ = ray.get(sched.apply.remote(np.array([[50, 51]]), None, "b2"))
    assert answer["version"] == 2 and answer["deltas"][str(tri)]["total"] == total
    assert ray.get(sched.register.remote("triangle"))["total"] == total  # the workers' graph: a recount
    ray.kill(sched)


def test_restart_replays_snapshot_and_log_to_the_same_state(ray_address, tmp_path):
    sched = _scheduler(tmp_path, snapshot_every=2)
    tri = ray.get(sched.register.remote("triangle"))["id"]
    ray.get(sched.register.remote("4-path", True))
    rng = np.random.default_rng(9)
    answers = [ray.get(sched.apply.remote(_random_batch(rng, 12, 10), None, f"b{i}"))[0] for i in range(5)]
    ray.get(sched.unregister.remote(tri))
    before = ray.get(sched.patterns.remote())
    edges_before = ray.get(sched.cluster.remote())["graph"]
    matches_before = ray.get(sched.matches.remote(before[0]["id"]))[2]
    ray.kill(sched)
    sched = _scheduler(tmp_path, snapshot_every=2)
    info = ray.get(sched.cluster.remote())
    assert info["recovered"]["version"] == 5 and info["recovered"]["snapshot_version"] == 4
    assert info["graph"] == edges_before
    assert ray.get(sched.patterns.remote()) == before
    assert ray.get(sched.matches.remote(before[0]["id"]))[2].tolist() == matches_before.tolist()
    dup, events = ray.get(sched.apply.remote(np.array([[1, 2]]), None, "b1"))
    assert dup["version"] == answers[1]["version"] and events == {}
    ray.kill(sched)


def test_failed_log_write_forgets_the_names_the_batch_added(ray_address, small_disk):
    """String names a refused batch introduced get no codes: the next batch's new names take
    the codes the log gives them, so a restart lists the same matches."""
    sched = _scheduler(small_disk.path / "data")
    tri = ray.get(sched.register.remote("triangle"))["id"]
    ray.get(sched.apply.remote([["a", "b"], ["b", "c"]], None, "b1"))
    small_disk.fill()
    padding = [[f"x{i:05d}" + "y" * 200, f"z{i:05d}" + "y" * 200] for i in range(2000)]
    with pytest.raises(LogWriteError):
        ray.get(sched.apply.remote(padding, None, "b2"))
    small_disk.make_room()
    answer, _ = ray.get(sched.apply.remote([["c", "a"], ["d", "a"], ["d", "b"]], None, "b3"))
    assert answer["version"] == 2 and answer["deltas"][str(tri)]["total"] == 2
    want = [["a", "b", "c"], ["a", "b", "d"]]
    assert ray.get(sched.matches.remote(tri, 0, None))[2].tolist() == want
    ray.kill(sched)
    again = _scheduler(small_disk.path / "data")
    assert ray.get(again.matches.remote(tri, 0, None))[2].tolist() == want
    ray.kill(again)


def test_local_batches_keep_the_workers_current_through_a_worker_kill(ray_address, tmp_path, make_core):
    """Batches the scheduler matches itself reach the workers behind its answer; a worker killed
    meanwhile is rebuilt from the log before the next call, and their static counts agree."""
    sched = _scheduler(tmp_path, routing=Routing("local"))
    local = make_core(replicas=1)
    pid = ray.get(sched.register.remote("triangle"))["id"]
    local.register(parse_pattern("triangle"))
    rng = np.random.default_rng(8)
    for b in range(4):
        ins = _random_batch(rng, 30, 60)
        if b == 2:  # the apply of batch 2 (and maybe 1) is lost with it
            ray.kill(ray.get(sched.worker_handles.remote())[0], no_restart=False)
        answer, info = ray.get(sched.apply.remote(ins, None))
        want = local.apply(ins, None).deltas[1]
        assert info["local"] and answer["deltas"][str(pid)]["total"] == want.total
        assert info["patterns"][pid]["added"].tolist() == want.added.tolist()
    assert ray.get(sched.register.remote("triangle"))["total"] == want.total  # counted by the workers
    assert ray.get(sched.cluster.remote())["workers"][0]["rebuilds"] == 1
    ray.kill(sched)


def test_workers_that_cut_counts_two_ways_count_whole_graphs_on_one_kind(ray_address):
    """Three worker actors, the middle one with the CPU formulas off (shares by edges, not
    vertices): registration counts on the other two and equals the oracle."""
    by_edges = make_worker_actors(1, "cpu", env={"DELTAMATCH_CPU_FORMULAS": "0"})
    handles = [*make_worker_actors(1, "cpu"), *by_edges, *make_worker_actors(1, "cpu")]
    empty = (np.zeros(0, np.int64), np.zeros((0, 2), np.int64), 0, [])
    pool = RayWorkerPool(handles, lambda: empty)
    try:
        pool.rebuild_all()
        core = SchedulerCore(pool)
        rng = np.random.default_rng(4)
        edges = {tuple(sorted(map(int, e))) for e in rng.integers(0, 40, (300, 2)) if e[0] != e[1]}
        core.load(sorted(edges))
        pattern = parse_pattern("house")
        assert pool.share_schemes() == ["cpu formulas=True", "cpu formulas=False", "cpu formulas=True"]
        assert core.register(pattern).total == len(reference_matches(edges, pattern.edges, pattern.k, False))
    finally:
        for h in handles:
            ray.kill(h)


def test_a_count_is_shared_again_when_a_rebuilt_worker_cuts_it_another_way(ray_address):
    """Worker 1 dies before a whole-graph count and, failing its rebuilds, is replaced by an actor
    with the CPU formulas off: its retried share was cut by vertices, its answer by edges, so the
    count runs again on the two workers that still agree, and equals the oracle."""
    rng = np.random.default_rng(6)
    edges = sorted({tuple(sorted(map(int, e))) for e in rng.integers(0, 40, (300, 2)) if e[0] != e[1]})
    state = (np.arange(40, dtype=np.int64), np.array(edges, dtype=np.int64), 1, [])
    handles = make_worker_actors(3, "cpu")
    pool = RayWorkerPool(handles, lambda: state,
                         spawn=lambda: make_worker_actors(1, "cpu", env={"DELTAMATCH_CPU_FORMULAS": "0"})[0])
    pattern = parse_pattern("house")
    try:
        pool.rebuild_all()
        pool.register(1, PatternPlans(compile_plans(pattern, shared_plans(pattern)),
                                      compile_plans(pattern, [static_plan(pattern)])))
        assert pool.share_schemes() == ["cpu formulas=True"] * 3
        ray.kill(pool.replicas[1], no_restart=True)
        assert pool.static_count(1) == len(reference_matches(set(edges), pattern.edges, pattern.k, False))
        assert pool.share_schemes() == ["cpu formulas=True", "cpu formulas=False", "cpu formulas=True"]
    finally:
        for h in pool.replicas:
            ray.kill(h)


class _Handle:
    """A worker actor handle that records the calls sent to it and answers each at once."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple]] = []

    def __getattr__(self, method: str):
        calls = self.calls

        class _Method:
            def remote(self, *args):
                calls.append((method, args))
                return ray.put(None)

        return _Method()


def test_local_batches_reach_the_workers_together(ray_address):
    """`apply_behind` queues; the queue goes out in one call per worker when full, and before
    any other call."""
    handles = [_Handle(), _Handle()]
    pool = RayWorkerPool(handles, lambda: None)
    batch = NormalizedBatch(np.zeros((0, 2), np.int32), np.array([[0, 1]], np.int32), 0)
    for version in range(1, BEHIND_BATCHES):
        pool.apply_behind(version, batch)
    assert handles[0].calls == [] and handles[1].calls == []
    pool.apply_behind(BEHIND_BATCHES, batch)
    pool.apply_behind(BEHIND_BATCHES + 1, batch)
    pool.clear(BEHIND_BATCHES + 2)
    for h in handles:
        assert [(method, [v for v, _ in args[1]]) for method, args in h.calls[:2]] == [
            ("apply_batches", list(range(1, BEHIND_BATCHES + 1))), ("apply_batches", [BEHIND_BATCHES + 1])]
        assert [method for method, _ in h.calls[2:]] == ["clear"]
