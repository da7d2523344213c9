"""Service fixtures: one local Ray per session, `deltamatch serve` subprocesses joining it, a graph mirror.

Every service test talks to a real uvicorn on a loopback port through the real client;
the mirror records every acknowledged batch so each test can recompute the oracle.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from deltamatch.kernels.reference import reference_matches
from deltamatch.service.client import DeltamatchClient

TOKEN = "test-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServiceProcess:
    """`deltamatch serve` in its own process group, joining the session's Ray."""

    def __init__(self, data_dir: Path, ray_address: str, log_path: Path, **env: str):
        self.port = free_port()
        self.data_dir = data_dir
        self.log_path = log_path
        self.env = {**os.environ, "RAY_ADDRESS": ray_address, "RAY_USAGE_STATS_ENABLED": "0",
                    "DELTAMATCH_KEEPALIVE": "1", **env}
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 180) -> None:
        """Launch and wait until /readyz answers 200 (a first start compiles the engines' numba
        code when the cache is cold: over 90 s on a loaded 2-core machine)."""
        self.launch()
        client = DeltamatchClient(self.url)
        deadline = time.monotonic() + timeout
        while not client.ready():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"service did not start:\n{self.log_path.read_text()[-3000:]}")
            time.sleep(0.2)
        client.close()

    def launch(self) -> None:
        """Start the process; do not wait for it."""
        cmd = [sys.executable, "-m", "deltamatch.commands.serve", "--port", str(self.port), "--workers", "2",
               "--backend", "cpu", "--data-dir", str(self.data_dir), "--log-level", "warning"]
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(cmd, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)

    def kill9(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.kill9()


class GraphMirror:
    """The graph as the tests believe it is: every acknowledged batch, applied in order."""

    def __init__(self) -> None:
        self.edges: set[tuple[int, int]] = set()
        self.history: dict[int, frozenset] = {0: frozenset()}
        self.version = 0

    def apply(self, answer: dict, insert=(), delete=()) -> None:
        ins = {(min(u, v), max(u, v)) for u, v in insert}
        dele = {(min(u, v), max(u, v)) for u, v in delete} - ins
        self.edges = (self.edges - dele) | ins
        self.version = answer["version"]
        self.history[self.version] = frozenset(self.edges)

    def matches(self, pattern: dict, version: int | None = None) -> set[tuple[int, ...]]:
        edges = self.edges if version is None else self.history[version]
        p_edges = [tuple(e) for e in pattern["edges"]]
        return reference_matches(edges, p_edges, pattern["k"], pattern["induced"])


@pytest.fixture(scope="session")
def service(ray_address, tmp_path_factory) -> ServiceProcess:
    """The shared service: token on, small limits (50,000 matches a page may list), short
    retention (8 events)."""
    tmp = tmp_path_factory.mktemp("service")
    svc = ServiceProcess(tmp / "data", ray_address, tmp / "serve.log", DELTAMATCH_TOKEN=TOKEN,
                         DELTAMATCH_RETENTION="8", DELTAMATCH_MAX_BATCH="500",
                         DELTAMATCH_MAX_REQUEST_BYTES=str(256 << 10), DELTAMATCH_LOAD_DIR=str(tmp),
                         DELTAMATCH_MAX_MATCH_LISTING="50000")
    svc.start()
    yield svc
    svc.stop()


@pytest.fixture
def make_service(ray_address, tmp_path):
    """Start extra services on their own data directory (stopped after the test)."""
    started = []

    def _make(**env: str) -> ServiceProcess:
        svc = ServiceProcess(tmp_path / "data", ray_address, tmp_path / "serve.log", **env)
        started.append(svc)
        return svc
    yield _make
    for svc in started:
        svc.stop()


@pytest.fixture
def token() -> str:
    return TOKEN


@pytest.fixture(scope="session")
def mirror() -> GraphMirror:
    return GraphMirror()


@pytest.fixture
def client(service) -> DeltamatchClient:
    c = DeltamatchClient(service.url, token=TOKEN)
    yield c
    c.close()


@pytest.fixture
def push(client, mirror):
    """Apply a batch through REST and record it in the mirror; returns the answer."""
    def _push(insert=(), delete=(), batch_id=None) -> dict:
        answer = client.update(insert=list(insert), delete=list(delete), batch_id=batch_id)
        if not answer.get("duplicate"):
            mirror.apply(answer, insert, delete)
        return answer
    return _push
