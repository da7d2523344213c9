"""Operations: clearing the graph through REST, and a busy port failing at once."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading

import pytest
from stream_events import collect

from deltamatch.service.client import DeltamatchClient

pytestmark = pytest.mark.timeout(180)


def test_clear_graph_is_a_version_streamed_and_kept_across_restart(make_service):
    svc = make_service()
    svc.start()
    c = DeltamatchClient(svc.url)
    tri = c.register_pattern("triangle")["id"]
    c.update(insert=[["a", "b"], ["b", "c"], ["c", "a"]])
    events: list = []
    reader = threading.Thread(target=collect, args=(svc.url, tri, 2, events), daemon=True)
    reader.start()
    answer = c.clear_graph()
    reader.join(30)
    assert answer["version"] == 2 and answer["deleted"] == 3
    assert answer["deltas"][str(tri)] == {"added": 0, "removed": 1, "total": 0}
    last = events[-1]
    assert (last["version"], last["removed_count"], last["total"], last["removed"]) == (2, 1, 0, [])
    assert c.cluster()["graph"]["edges"] == 0
    svc.kill9()
    svc.start()
    c2 = DeltamatchClient(svc.url)
    assert c2.cluster()["graph"]["version"] == 2 and c2.pattern(tri)["total"] == 0
    again = c2.update(insert=[[1, 2], [2, 3], [3, 1]])  # integers after names: the graph was cleared
    assert again["version"] == 3 and again["deltas"][str(tri)]["total"] == 1


def test_busy_port_fails_at_once_in_one_line(tmp_path):
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        out = subprocess.run([sys.executable, "-m", "deltamatch.cli", "serve", "--port", str(port),
                              "--data-dir", str(tmp_path / "data")],
                             capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    expected = f"deltamatch serve: cannot listen on 127.0.0.1:{port}: Address already in use"
    assert out.stderr.strip() == expected
    assert not (tmp_path / "data").exists()  # it stopped before touching anything
