"""String vertex names end to end: REST batches -> stream listings -> kill -9 and restart -> /matches."""

from __future__ import annotations

import json
import threading

import pytest
from stream_events import collect
from websockets.sync.client import connect

from deltamatch.scheduler.names import MAX_NAME_LENGTH
from deltamatch.service.client import DeltamatchClient

pytestmark = pytest.mark.timeout(180)

FRIENDS = [["alice", "bob"], ["bob", "carol"], ["carol", "alice"], ["carol", "dave@x.org"],
           ["dave@x.org", "alice"]]


def test_names_survive_streams_and_a_restart(make_service):
    svc = make_service(DELTAMATCH_SNAPSHOT_EVERY="2")
    svc.start()
    c = DeltamatchClient(svc.url)
    tri = c.register_pattern("triangle")["id"]
    events: list = []
    reader = threading.Thread(target=collect, args=(svc.url, tri, 3, events), daemon=True)
    reader.start()
    c.load_edges(FRIENDS[:2])
    second = c.update(insert=FRIENDS[2:])
    with connect(svc.url.replace("http", "ws") + f"/v1/patterns/{tri}/ws?since=1") as ws:
        ws_event = json.loads(ws.recv())
    third = c.update(delete=[["bob", "carol"]], insert=[["erin", "bob"]])
    reader.join(30)
    deltas = [e for e in events if e["event"] == "delta"]
    assert [e["version"] for e in deltas] == [1, 2, 3]
    assert deltas[1]["added"] == [["alice", "bob", "carol"], ["alice", "carol", "dave@x.org"]]
    assert second["deltas"][str(tri)] == {"added": 2, "removed": 0, "total": 2}
    assert ws_event["data"]["added"] == deltas[1]["added"]
    assert deltas[2]["removed"] == [["alice", "bob", "carol"]] and third["deltas"][str(tri)]["total"] == 1
    before = c.matches(tri)
    assert before["matches"] == [["alice", "carol", "dave@x.org"]]
    svc.kill9()
    svc.start()
    c2 = DeltamatchClient(svc.url)
    assert c2.matches(tri) == before
    after = c2.update(insert=[["erin", "alice"], ["bob", "alice"]])
    assert after["deltas"][str(tri)]["added"] == 1
    assert c2.matches(tri)["matches"] == [["alice", "bob", "erin"], ["alice", "carol", "dave@x.org"]]


def test_names_of_the_other_kind_and_overlong_names_are_refused(make_service):
    svc = make_service()
    svc.start()
    c = DeltamatchClient(svc.url)
    c.update(insert=[["alice", "bob"]])
    r = c.http.post("/v1/updates", json={"insert": [[1, 2]]})
    assert r.status_code == 422 and "named by strings" in r.json()["detail"]
    r = c.http.post("/v1/updates", json={"insert": [["bob", "x" * (MAX_NAME_LENGTH + 1)]]})
    assert r.status_code == 422 and "insert[0]" in r.json()["detail"]
    r = c.http.post("/v1/updates", json={"insert": [["bob", "carol"], [True, "x"]]})
    assert r.status_code == 422 and "insert[1]" in r.json()["detail"]
    assert c.cluster()["graph"]["version"] == 1
