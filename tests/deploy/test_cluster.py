"""A real Ray cluster on this machine, brought up with the image's entrypoint roles.

Node A runs `entrypoint.sh head` (Ray head + `deltamatch serve`), node B runs
`entrypoint.sh worker` joining it through RAY_ADDRESS, each with its own temp dir, one
logical GPU and a marker resource; both use token authentication with one shared
token.  The service's two workers (one GPU each) must land one per node and give,
batch for batch, the deltas of a single-node run and of the brute-force oracle.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import numpy as np
import pytest

from deltamatch.kernels.reference import reference_matches
from deltamatch.scheduler.core import SchedulerCore, WorkerPool
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.workers.replica import GraphReplica

PATTERNS = [
    {"name": "triangle"},
    {"name": "diamond"},
    {"name": "4-cycle", "induced": True},
]
PATTERN_EDGES = {
    "triangle": [(0, 1), (1, 2), (2, 0)],
    "diamond": [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)],
    "4-cycle": [(0, 1), (1, 2), (2, 3), (3, 0)],
}
NUM_WORKERS = 2  # one logical GPU each: both on one node, or one per node
ROOT = Path(__file__).resolve().parents[2]
ENTRYPOINT = ROOT / "deploy" / "entrypoint.sh"
# Two clusters start side by side and each warms every engine path before it is ready (cold
# numba caches compile there): on a loaded 2-core machine that has taken over 120 s.
START_TIMEOUT = 300.0


# Ports handed out below the kernel's ephemeral range and above Ray's worker ports (10002-19999):
# a port the kernel picks (bind to 0) comes from the range that the Ray processes starting beside
# the clusters draw from too, and one of them took the service's before it listened (CI, session
# 28: "cannot listen on 127.0.0.1:44379: Address already in use").
PORTS_FROM = 20000
_handed_out: set[int] = set()


def _free_port() -> int:
    """A loopback port free now, outside the ephemeral range and not handed out before."""
    ephemeral = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    for port in random.sample(range(PORTS_FROM, max(ephemeral, PORTS_FROM + 1000)), 200):
        if port in _handed_out:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _handed_out.add(port)
        return port
    raise RuntimeError(f"no free port from {PORTS_FROM} in 200 tries")


def _session_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2:].split()[3])


def _session_members(sid: int) -> list[int]:
    return [int(d) for d in os.listdir("/proc") if d.isdigit() and _session_of(int(d)) == sid]


@dataclass
class Node:
    """One `entrypoint.sh ROLE` process tree, in its own session so teardown ends exactly it."""

    role: str
    proc: subprocess.Popen
    log: Path

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(30)
        for pid in _session_members(self.proc.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@dataclass
class Cluster:
    """The nodes of one test cluster and the service URL on node A."""

    url: str
    ray_address: str
    env: dict
    tmp: Path
    nodes: list[Node] = field(default_factory=list)

    def spawn(self, role: str, **extra: str) -> Node:
        """Run `entrypoint.sh role` with the cluster's settings plus `extra`."""
        log = self.tmp / f"{role}-{len(list(self.tmp.glob('*.log')))}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(["bash", str(ENTRYPOINT), role], env=dict(self.env, **extra),
                                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        return Node(role, proc, log)

    def start(self, role: str, **extra: str) -> Node:
        node = self.spawn(role, **extra)
        self.nodes.append(node)
        return node

    def wait_ready(self) -> dict:
        deadline = time.monotonic() + START_TIMEOUT
        last = None
        while time.monotonic() < deadline:
            for node in self.nodes:
                if node.proc.poll() is not None:
                    tail = node.log.read_text()[-4000:]
                    pytest.fail(f"{node.role} exited with {node.proc.returncode}:\n{tail}")
            try:
                r = httpx.get(f"{self.url}/readyz", timeout=5)
                last = r.text
                if r.status_code == 200:
                    return r.json()
                if r.json().get("detail") != "starting":
                    break
            except httpx.TransportError as exc:
                last = repr(exc)
            time.sleep(0.5)
        logs = "\n".join(f"--- {n.role}\n{n.log.read_text()[-3000:]}" for n in self.nodes)
        pytest.fail(f"service not ready (last answer {last}):\n{logs}")

    def stop(self) -> None:
        for node in self.nodes:  # the head first: the service leaves Ray before the nodes go
            node.stop()


def _base_env(tmp: Path) -> dict:
    """Settings every node of one cluster shares: auth, ports, CPU engine, a loopback service."""
    bin_dir = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "DELTAMATCH_"))}
    env.update(
        PATH=f"{bin_dir}:{env.get('PATH', '')}",
        RAY_AUTH_MODE="token",
        RAY_AUTH_TOKEN=secrets.token_hex(16),
        RAY_USAGE_STATS_ENABLED="0",
        RAY_NODE_IP_ADDRESS="127.0.0.1",
        RAY_NUM_CPUS="2",
        RAY_WAIT_SECONDS="60",
        RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S="1",  # a stopped node would wait 30 s for its drain
        DELTAMATCH_HOST="127.0.0.1",
        DELTAMATCH_PORT=str(_free_port()),
        DELTAMATCH_WORKERS=str(NUM_WORKERS),
        DELTAMATCH_NUM_GPUS_PER_WORKER="1",
        DELTAMATCH_BACKEND="cpu",
        DELTAMATCH_DATA_DIR=str(tmp / "data"),
    )
    return env


def _node_settings(tmp: Path, name: str, gpus: int) -> dict:
    temp_dir = tmp / f"ray-{name}"
    temp_dir.mkdir()
    return {"RAY_NUM_GPUS": str(gpus), "RAY_RESOURCES": json.dumps({name: gpus}),
            "RAY_TEMP_DIR": str(temp_dir), "RAY_DASHBOARD_AGENT_LISTEN_PORT": str(_free_port())}


@pytest.fixture(scope="module")
def tmp_root() -> Iterator[Path]:
    # Short: Ray's unix socket paths under the temp dir must stay below 108 bytes.
    path = Path(tempfile.mkdtemp(prefix="dmdeploy-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _launch_cluster(tmp: Path, node_gpus: list[int]) -> Cluster:
    """Start a head and len(node_gpus) - 1 worker nodes, without waiting for them."""
    tmp.mkdir()
    env = _base_env(tmp)
    head_port = _free_port()
    env["RAY_PORT"] = str(head_port)
    cluster = Cluster(f"http://127.0.0.1:{env['DELTAMATCH_PORT']}", f"127.0.0.1:{head_port}", env, tmp)
    names = [f"node_{chr(ord('a') + i)}" for i in range(len(node_gpus))]
    try:
        cluster.start("head", RAY_CLIENT_SERVER_PORT=str(_free_port()),
                      **_node_settings(tmp, names[0], node_gpus[0]))
        for name, gpus in zip(names[1:], node_gpus[1:], strict=True):
            cluster.start("worker", RAY_ADDRESS=cluster.ray_address, **_node_settings(tmp, name, gpus))
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _batches(seed: int = 7, n: int = 22) -> list[dict]:
    """A load batch, whole-pattern batches (exactly-once), and random mixed batches."""
    rng = random.Random(seed)
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    present: set[tuple[int, int]] = set(rng.sample(pairs, 70))
    batches = [{"insert": sorted(present)}]
    batches.append({"insert": [[0, 1], [1, 2], [0, 2], [2, 3], [1, 3], [0, 3]]})  # a 4-clique in one batch
    present |= {(0, 1), (1, 2), (0, 2), (2, 3), (1, 3), (0, 3)}
    batches.append({"delete": [[0, 1], [1, 2], [0, 2]]})
    present -= {(0, 1), (1, 2), (0, 2)}
    for _ in range(5):
        delete = rng.sample(sorted(present), 6)
        insert = rng.sample([p for p in pairs if p not in present], 8)
        present = (present - set(delete)) | set(insert)
        batches.append({"insert": [list(p) for p in insert], "delete": [list(p) for p in delete]})
    return batches


def _read_stream(url: str, pid: int, last_version: int) -> list[dict]:
    events = []
    with httpx.stream("GET", f"{url}/v1/patterns/{pid}/deltas", params={"since": 0}, timeout=30) as r:
        r.raise_for_status()
        kind, data = None, None
        for line in r.iter_lines():
            if line.startswith("event:"):
                kind = line.split(":", 1)[1].strip()
            elif line.startswith("data:"):
                data = json.loads(line.split(":", 1)[1])
            elif line == "" and kind is not None:
                assert kind == "delta", f"unexpected {kind} event: {data}"
                events.append(data)
                if data["version"] == last_version:
                    break
                kind, data = None, None
    return events


def _run_workload(url: str) -> dict:
    """Register the patterns, push every batch, and collect the answers and stream events."""
    with httpx.Client(base_url=url, timeout=60) as client:
        ids = {}
        for spec in PATTERNS:
            r = client.post("/v1/patterns", json=spec)
            assert r.status_code == 201, r.text
            ids[spec["name"]] = r.json()["id"]
        answers = []
        for batch in _batches():
            r = client.post("/v1/updates", json=batch)
            assert r.status_code == 200, r.text
            answers.append({k: r.json()[k] for k in ("version", "inserted", "deleted", "ignored", "deltas")})
    last = answers[-1]["version"]
    events = {name: _read_stream(url, pid, last) for name, pid in ids.items()}
    return {"ids": ids, "answers": answers, "events": events}


def _compile_engine_kernels() -> None:
    """Run the workload's patterns once in-process, so the numba kernels are compiled and
    cached on disk while the clusters start, and their workers load them instead."""
    core = SchedulerCore(WorkerPool([GraphReplica("cpu")]))
    for spec in PATTERNS:
        core.register(parse_pattern(spec["name"], spec.get("induced", False)))
    edges = np.array(_batches()[0]["insert"], dtype=np.int64)
    core.apply(edges, np.zeros((0, 2), dtype=np.int64))
    core.apply(np.zeros((0, 2), dtype=np.int64), edges[:5])


@pytest.fixture(scope="module")
def clusters(tmp_root: Path) -> Iterator[dict[str, Cluster]]:
    """A single-node and a two-node cluster, started side by side (their start-ups overlap)."""
    started: dict[str, Cluster] = {}
    try:
        started["single"] = _launch_cluster(tmp_root / "single", [NUM_WORKERS])
        started["two"] = _launch_cluster(tmp_root / "two", [1, 1])
        _compile_engine_kernels()
        for cluster in started.values():
            cluster.wait_ready()
        yield started
    finally:
        for cluster in started.values():
            cluster.stop()


@pytest.fixture(scope="module")
def two_nodes(clusters: dict[str, Cluster]) -> Cluster:
    return clusters["two"]


@pytest.fixture(scope="module")
def single_node_run(clusters: dict[str, Cluster]) -> dict:
    return _run_workload(clusters["single"].url)


@pytest.fixture(scope="module")
def two_node_run(two_nodes: Cluster) -> dict:
    return _run_workload(two_nodes.url)


def test_workers_are_placed_on_both_nodes(two_nodes: Cluster):
    workers = httpx.get(f"{two_nodes.url}/v1/cluster", timeout=30).json()["workers"]
    sessions = {node.proc.pid: node.role for node in two_nodes.nodes}
    placed = sorted(sessions.get(_session_of(w["pid"]), f"pid {w['pid']} on no node") for w in workers)
    assert placed == ["head", "worker"]
    assert all(w["node"] for w in workers), "every worker reports the IP of its Ray node"


def _titles(sid: int) -> list[str]:
    titles = []
    for pid in _session_members(sid):
        with contextlib.suppress(OSError):
            titles.append(Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"))
    return titles


def test_scheduler_runs_on_the_service_node(two_nodes: Cluster):
    on = {n.role: any(t.startswith("ray::Scheduler") for t in _titles(n.proc.pid)) for n in two_nodes.nodes}
    assert on == {"head": True, "worker": False}


def test_two_node_deltas_match_the_reference(two_node_run: dict):
    edges: set[frozenset] = set()
    previous = {name: set() for name in PATTERN_EDGES}
    for batch, answer in zip(_batches(), two_node_run["answers"], strict=True):
        edges -= {frozenset(p) for p in batch.get("delete", [])}
        edges |= {frozenset(p) for p in batch.get("insert", [])}
        for spec in PATTERNS:
            name = spec["name"]
            k = 1 + max(max(e) for e in PATTERN_EDGES[name])
            now = reference_matches(map(tuple, edges), PATTERN_EDGES[name], k, spec.get("induced", False))
            event = two_node_run["events"][name][answer["version"] - 1]
            assert event["version"] == answer["version"]
            assert {tuple(m) for m in event["added"]} == now - previous[name], (name, answer["version"])
            assert {tuple(m) for m in event["removed"]} == previous[name] - now, (name, answer["version"])
            assert event["total"] == len(now) == answer["deltas"][str(two_node_run["ids"][name])]["total"]
            previous[name] = now


def _as_sets(events: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """Events with their match lists as sets (a delta is a set of matches, SPEC §1)."""
    return {name: [dict(e, added={tuple(m) for m in e["added"]}, removed={tuple(m) for m in e["removed"]})
                   for e in evs] for name, evs in events.items()}


def test_two_node_deltas_equal_the_single_node_run(two_node_run: dict, single_node_run: dict):
    assert two_node_run["answers"] == single_node_run["answers"]
    assert _as_sets(two_node_run["events"]) == _as_sets(single_node_run["events"])


def test_healthcheck_role_passes_against_the_ready_service(two_nodes: Cluster):
    env = dict(two_nodes.env)
    result = subprocess.run(["bash", str(ENTRYPOINT), "healthcheck"], env=env, capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("auth", [{"RAY_AUTH_TOKEN": "f" * 32}, {"RAY_AUTH_MODE": "disabled"}],
                         ids=["another-token", "auth-disabled"])
def test_a_node_without_the_clusters_token_is_refused(two_nodes: Cluster, auth: dict):
    settings = _node_settings(two_nodes.tmp, f"refused_{secrets.token_hex(3)}", 1)
    node = two_nodes.spawn("worker", RAY_ADDRESS=two_nodes.ray_address, **auth, **settings)
    try:
        assert node.proc.wait(60) == 2
    finally:
        node.stop()
    assert "rejected this node's credentials" in node.log.read_text()
