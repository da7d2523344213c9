"""Fault injection on a real service (uvicorn + Ray scheduler + 2 worker actors) with real OS
errors and real process deaths: a full disk mid-stream, kill -9 of the service at points spread
over a batch, the scheduler actor killed alone, one worker killed again and again, a damaged log.

After each: the version counts exactly the acknowledged batches, the graph and totals match
an independent recount, every acknowledged batch_id answers `duplicate: true` with its
original answer, no refused batch was applied, and every answer was JSON.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import threading
import time

import httpx
import networkx as nx
import pytest

from deltamatch.scheduler.actor import MAX_ATTEMPTS
from tests.service.conftest import ServiceProcess

pytestmark = pytest.mark.timeout(300)


class Session:
    """A client that insists every answer is JSON, and the batches the service acknowledged."""

    def __init__(self, svc: ServiceProcess):
        self.svc = svc
        self.edges: set[tuple[int, int]] = set()
        self.acked: dict[str, dict] = {}
        self.refused: dict[str, list] = {}
        self.http = httpx.Client(base_url=svc.url, timeout=120)

    def call(self, method: str, path: str, **kwargs) -> httpx.Response:
        r = self.http.request(method, path, **kwargs)
        assert r.headers["content-type"].startswith("application/json"), (r.status_code, r.text[:200])
        if r.status_code >= 400:
            assert isinstance(r.json()["detail"], str)
        return r

    def push(self, batch_id: str, insert: list) -> httpx.Response:
        """POST one batch; a 200 is recorded as acknowledged, anything else as refused."""
        r = self.call("POST", "/v1/updates", json={"batch_id": batch_id, "insert": insert})
        if r.status_code == 200 and not r.json().get("duplicate"):
            self.acked[batch_id] = r.json()
            self.edges |= {(min(u, v), max(u, v)) for u, v in insert}
        elif r.status_code != 200:
            self.refused[batch_id] = insert
        return r

    def settle(self, batch_id: str, insert: list) -> bool:
        """After a crash, resend a batch whose fate is unknown: applied once either way.  True when
        it had been committed before."""
        r = self.call("POST", "/v1/updates", json={"batch_id": batch_id, "insert": insert})
        assert r.status_code == 200, r.text
        self.acked.setdefault(batch_id, r.json())
        self.edges |= {(min(u, v), max(u, v)) for u, v in insert}
        self.refused.pop(batch_id, None)
        return bool(r.json().get("duplicate"))

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while self.call("GET", "/readyz").status_code != 200:
            assert time.monotonic() < deadline, self.call("GET", "/readyz").text
            time.sleep(0.2)

    def check(self, triangle_id: int) -> None:
        """The invariants of the module docstring (refused batches are checked by the graph)."""
        graph = self.call("GET", "/v1/cluster").json()["graph"]
        assert graph["version"] == len(self.acked) and graph["edges"] == len(self.edges)
        want = sum(nx.triangles(nx.Graph(list(self.edges))).values()) // 3
        assert self.call("GET", f"/v1/patterns/{triangle_id}").json()["total"] == want
        for batch_id, answer in self.acked.items():
            again = self.call("POST", "/v1/updates", json={"batch_id": batch_id, "insert": [[0, 1]]}).json()
            assert again["duplicate"] is True
            assert {k: again[k] for k in answer} == answer

    def close(self) -> None:
        self.http.close()


def _batch(rng: random.Random, n: int, size: int, first: int = 0) -> list[list[int]]:
    """`size` random pairs of distinct vertices in [first, first + n)."""
    out = []
    while len(out) < size:
        u, v = rng.randrange(first, first + n), rng.randrange(first, first + n)
        if u != v:
            out.append([u, v])
    return out


@pytest.fixture
def start(ray_address, tmp_path):
    """start(data_dir) -> a running service joining the session's Ray; all stopped after the test."""
    started = []

    def _start(data_dir, **env: str) -> ServiceProcess:
        svc = ServiceProcess(data_dir, ray_address, tmp_path / "serve.log", **env)
        svc.start()
        started.append(svc)
        return svc
    yield _start
    for svc in started:
        svc.stop()


def _restart(svc: ServiceProcess) -> None:
    svc.kill9()
    svc.start()


def test_full_disk_refuses_batches_changes_nothing_and_recovers(start, small_disk):
    svc = start(small_disk.path / "data")
    s = Session(svc)
    tri = s.call("POST", "/v1/patterns", json={"name": "triangle"}).json()["id"]
    rng = random.Random(1)
    for i in range(4):
        assert s.push(f"a{i}", _batch(rng, 400, 2000)).status_code == 200
    small_disk.fill()
    for i in range(3):
        r = s.push(f"full{i}", _batch(rng, 400, 2000))
        assert r.status_code == 503 and "No space left" in r.json()["detail"]
    ready = s.call("GET", "/readyz")
    assert ready.status_code == 503 and "not writable" in ready.json()["detail"]
    s.check(tri)  # memory did not run ahead of the log
    small_disk.make_room()
    s.wait_ready(10)
    for i in range(2):
        assert s.push(f"b{i}", _batch(rng, 400, 2000)).status_code == 200
    _restart(svc)
    s.check(tri)
    for batch_id in sorted(s.refused):  # never applied: a retry is a new version
        insert = s.refused[batch_id]
        r = s.push(batch_id, insert)
        assert r.status_code == 200 and "duplicate" not in r.json()
    s.check(tri)
    s.close()


DENSE = 240  # vertices of one kill test batch, 14,000 pairs: its 5-cliques take a few tenths of a second
# A service joining a Ray cluster (the session's) and one that starts its own: kill -9 of an embedded
# Ray's process group takes the raylet along, and nothing but the actors' lifeline ends them at once.
RAY_MODES = {"joined": {}, "embedded": {"RAY_ADDRESS": "", "DELTAMATCH_RAY_NUM_CPUS": "2"}}


@pytest.mark.parametrize("ray_mode", sorted(RAY_MODES))
def test_kill9_at_any_point_of_a_batch_loses_nothing_and_commits_nothing_after(start, tmp_path, ray_mode):
    svc = start(tmp_path / "data", **RAY_MODES[ray_mode])
    s = Session(svc)
    tri = s.call("POST", "/v1/patterns", json={"name": "triangle"}).json()["id"]
    s.call("POST", "/v1/patterns", json={"name": "5-clique"})
    rng = random.Random(2)
    # each batch on vertices of its own, so that every batch costs what the timed ones did; the
    # first compiles (ten times a later one), and the fastest of three timed ones sets the kills
    s.push("compile", _batch(rng, DENSE, 14_000))
    timings = []
    for block in range(1, 4):
        began = time.perf_counter()
        timed = s.push(f"timed{block}", _batch(rng, DENSE, 14_000, block * DENSE))
        timings.append((time.perf_counter() - began, timed.json()["elapsed_ms"] / 1e3))
    latency, engine = min(timings)
    # kill while the API parses, in the middle and at the end of the workers' share, and
    # around the append and the answer (each restart of an embedded Ray costs ~10 s: two kills)
    delays = (0.5 * (latency - engine), latency - engine / 2, latency - engine / 10, latency + 0.02)
    for attempt, delay in enumerate(delays if ray_mode == "joined" else delays[1:3]):
        batch_id, insert = f"k{attempt}", _batch(rng, DENSE, 14_000, (attempt + 4) * DENSE)
        info = s.call("GET", "/v1/cluster").json()
        actor_pids = [info["scheduler_pid"]] + [w["pid"] for w in info["workers"]]
        post = threading.Thread(target=lambda b=batch_id, i=insert: _post_quietly(svc.url, b, i))
        post.start()
        time.sleep(max(delay, 0.0))
        svc.kill9()
        logged = _log_bytes(svc.data_dir)
        deadline = time.monotonic() + 2
        while [pid for pid in actor_pids if _alive(pid)]:  # the scheduler and workers end with it
            assert time.monotonic() < deadline
            time.sleep(0.05)
        grown = _log_bytes(svc.data_dir) > logged
        post.join(30)
        svc.start()
        committed = s.settle(batch_id, insert)
        # at most the record begun before the API was gone was finished after it
        assert committed or not grown
        if delay < latency - engine / 3:
            assert not committed, (delay, latency, engine)  # the scheduler did not go on without the API
        s.check(tri)
    s.close()


def test_scheduler_killed_alone_is_restarted_from_the_log(start, tmp_path):
    svc = start(tmp_path / "data")
    s = Session(svc)
    tri = s.call("POST", "/v1/patterns", json={"name": "triangle"}).json()["id"]
    s.call("POST", "/v1/patterns", json={"name": "4-clique"})
    rng = random.Random(3)
    for i in range(3):
        assert s.push(f"a{i}", _batch(rng, 80, 500)).status_code == 200
    for mid_batch in (False, True):
        batch_id, insert = f"in-doubt-{mid_batch}", _batch(rng, 120, 3000)
        scheduler = s.call("GET", "/v1/cluster").json()["scheduler_pid"]
        post = threading.Thread(target=s.push, args=(batch_id, insert))
        if mid_batch:
            post.start()
            time.sleep(0.3)
        os.kill(scheduler, signal.SIGKILL)
        if not mid_batch:
            post.start()
        post.join(60)
        assert batch_id in s.acked or batch_id in s.refused
        s.wait_ready(60)
        s.settle(batch_id, insert)
        s.check(tri)
    s.close()


def test_a_worker_killed_again_and_again_is_recreated_every_time(start, tmp_path):
    svc = start(tmp_path / "data")
    s = Session(svc)
    tri = s.call("POST", "/v1/patterns", json={"name": "triangle"}).json()["id"]
    rng = random.Random(4)
    kills = MAX_ATTEMPTS + 1  # more deaths than one call retries: rebuilds are not counted against it
    for i in range(kills):
        os.kill(s.call("GET", "/v1/cluster").json()["workers"][0]["pid"], signal.SIGKILL)
        insert = _batch(rng, 60, 200)
        if s.push(f"w{i}", insert).status_code != 200:
            s.settle(f"w{i}", insert)
    s.wait_ready(30)
    assert s.call("GET", "/v1/cluster").json()["workers"][0]["rebuilds"] >= kills
    s.check(tri)
    s.close()


def _post_quietly(url: str, batch_id: str, insert: list) -> None:
    """A POST whose service is killed under it: any answer, or none, is fine."""
    with contextlib.suppress(httpx.HTTPError):
        httpx.post(f"{url}/v1/updates", json={"batch_id": batch_id, "insert": insert}, timeout=30)


def _log_bytes(data_dir) -> int:
    return sum(p.stat().st_size for p in data_dir.glob("log-*.bin"))


def _alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_damaged_log_stops_the_start_until_repair_keeps_a_copy_and_cuts(start, ray_address, tmp_path):
    svc = start(tmp_path / "data")
    s = Session(svc)
    rng = random.Random(5)
    for i in range(3):
        assert s.push(f"a{i}", _batch(rng, 50, 100)).status_code == 200
    svc.stop()
    segment = max((p for p in svc.data_dir.glob("log-*.bin") if p.stat().st_size), key=lambda p: p.name)
    data = bytearray(segment.read_bytes())
    data[len(data) // 2] ^= 0xFF  # inside the second batch record, with the third after it
    segment.write_bytes(bytes(data))
    broken = ServiceProcess(svc.data_dir, ray_address, tmp_path / "broken.log")
    broken.launch()
    detail, deadline = "", time.monotonic() + 60
    while "LogCorruptError" not in detail and time.monotonic() < deadline:
        time.sleep(0.3)
        with contextlib.suppress(httpx.TransportError):
            detail = Session(broken).call("GET", "/readyz").json()["detail"]
    broken.stop()
    assert "LogCorruptError" in detail and "offset" in detail and "--repair" in detail
    assert segment.read_bytes() == bytes(data)
    repaired = start(svc.data_dir, DELTAMATCH_REPAIR="1")
    assert Session(repaired).call("GET", "/v1/cluster").json()["graph"]["version"] == 1
    assert [p.read_bytes() for p in svc.data_dir.glob("log-*.bin.corrupt-*")] == [bytes(data)]
