"""deploy/entrypoint.sh run for real: auth settings checked before any Ray process starts,
the health check against a live HTTP endpoint, and only options Ray's CLI has."""

from __future__ import annotations

import http.server
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from deploy_files import DEPLOY
from ray.scripts import scripts as ray_cli

ENTRYPOINT = DEPLOY / "entrypoint.sh"


def _run(role: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "DELTAMATCH_"))}
    base.update(HOME=str(tmp_path), PATH=f"{Path(sys.executable).parent}:{base.get('PATH', '')}")
    return subprocess.run(["bash", str(ENTRYPOINT), role], env=dict(base, **env), capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("role", ["head", "worker", "serve"])
def test_token_mode_without_a_token_refuses_to_start(role: str, tmp_path: Path):
    result = _run(role, tmp_path, RAY_ADDRESS="127.0.0.1:9")
    assert result.returncode == 2
    assert "RAY_AUTH_TOKEN" in result.stderr and "RAY_AUTH_MODE=disabled" in result.stderr


def test_a_token_file_satisfies_token_mode(tmp_path: Path):
    token = tmp_path / "token"
    token.write_text("0123456789abcdef")
    result = _run("worker", tmp_path, RAY_AUTH_TOKEN_PATH=str(token))
    assert result.returncode == 2
    assert "needs RAY_ADDRESS" in result.stderr


def test_unknown_auth_mode_is_rejected(tmp_path: Path):
    result = _run("head", tmp_path, RAY_AUTH_MODE="tokens")
    assert result.returncode == 2
    assert "RAY_AUTH_MODE must be 'token' or 'disabled', not 'tokens'" in result.stderr


@pytest.mark.parametrize("role", ["worker", "serve"])
def test_joining_roles_need_ray_address(role: str, tmp_path: Path):
    result = _run(role, tmp_path, RAY_AUTH_MODE="disabled")
    assert result.returncode == 2
    assert f"the {role} role needs RAY_ADDRESS" in result.stderr


class _Readyz(http.server.BaseHTTPRequestHandler):
    status = 503

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        code = self.status if self.path == "/readyz" else 404
        self.send_response(code)
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def readyz_server() -> Iterator[http.server.HTTPServer]:
    server = http.server.HTTPServer(("127.0.0.1", 0), _Readyz)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(("status", "rc"), [(200, 0), (503, 1)])
def test_healthcheck_follows_readyz(status: int, rc: int, readyz_server, tmp_path: Path):
    _Readyz.status = status
    result = _run("healthcheck", tmp_path, DELTAMATCH_PORT=str(readyz_server.server_address[1]))
    assert result.returncode == rc


def test_healthcheck_fails_when_nothing_answers(readyz_server, tmp_path: Path):
    port = readyz_server.server_address[1]
    readyz_server.shutdown()
    readyz_server.server_close()
    result = _run("healthcheck", tmp_path, DELTAMATCH_HEALTH_URL=f"http://127.0.0.1:{port}/readyz")
    assert result.returncode == 1


def test_every_ray_option_it_passes_exists():
    known = {o for command in (ray_cli.start, ray_cli.healthcheck) for p in command.params for o in p.opts}
    used = set(re.findall(r"(--[a-z][a-z-]+)", ENTRYPOINT.read_text()))
    assert used - known == set()
