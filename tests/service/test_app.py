"""The service end to end: real uvicorn, real Ray with 2 worker actors, real SSE/WebSocket clients.

Every stream event is checked against the brute-force oracle on the mirrored graph.
"""

from __future__ import annotations

import gzip
import io
import json
import random
import socket
import threading

import httpx
import numpy as np
import pytest
from websockets.sync.client import connect

from deltamatch.kernels.reference import reference_matches
from deltamatch.service.client import DeltamatchClient, DeltamatchError

pytestmark = pytest.mark.timeout(180)


def _pair(rng: random.Random, lo: int, hi: int) -> tuple[int, int]:
    u = rng.randrange(lo, hi)
    v = rng.randrange(lo, hi - 1)
    return u, v if v < u else v + 1


def _collect(url: str, pid: int, since: int, until: int, out: list) -> None:
    with DeltamatchClient(url) as c:
        for ev in c.deltas(pid, since=since):
            out.append(ev)
            if ev["version"] >= until:
                return


def _collect_through_restart(url: str, pid: int, since: int, out: list) -> None:
    with DeltamatchClient(url) as c:
        for ev in c.deltas(pid, since=since, retries=40):
            out.append(ev)
            return


def _check_events(events: list, pattern: dict, mirror, since: int, until: int) -> None:
    assert [e["version"] for e in events] == list(range(since + 1, until + 1))
    for e in events:
        old, new = mirror.matches(pattern, e["version"] - 1), mirror.matches(pattern, e["version"])
        assert e["event"] == "delta" and e["pattern_id"] == pattern["id"]
        assert {tuple(m) for m in e["added"]} == new - old
        assert {tuple(m) for m in e["removed"]} == old - new
        counts = (e["added_count"], e["removed_count"], e["total"])
        assert counts == (len(new - old), len(old - new), len(new))
        assert e["truncated"] is False


def test_streams_match_the_oracle_for_every_version(service, client, push, mirror):
    patterns = [client.register_pattern("triangle"), client.register_pattern("4-cycle"),
                client.register_pattern("4-path", induced=True)]
    for p in patterns:
        assert p["total"] == len(mirror.matches(p))
    start = mirror.version
    rng = random.Random(7)
    batches = []
    for b in range(10):
        insert = [_pair(rng, 0, 12) for _ in range(6)]
        a, c, d = rng.sample(range(12), 3)
        insert += [(a, c), (c, d), (a, d)]  # a whole triangle inside one batch
        delete = rng.sample(sorted(mirror.edges), min(3, len(mirror.edges))) if b % 2 else []
        batches.append((insert, delete))
    until = start + len(batches)
    sse = {p["id"]: [] for p in patterns}
    threads = [threading.Thread(target=_collect, args=(service.url, p["id"], start, until, sse[p["id"]]))
               for p in patterns]
    for t in threads:
        t.start()
    for insert, delete in batches:
        answer = push(insert, delete)
        for p in patterns:
            assert answer["deltas"][str(p["id"])]["total"] == len(mirror.matches(p))
    for t in threads:
        t.join(60)
    for p in patterns:
        _check_events(sse[p["id"]], p, mirror, start, until)
        assert client.pattern(p["id"])["total"] == len(mirror.matches(p))


def test_websocket_twin_sends_the_same_events(service, client, push, mirror):
    p = client.register_pattern("triangle")
    start = mirror.version
    push([(20, 21), (21, 22), (20, 22)])
    push([(22, 23), (21, 23)], [(20, 21)])
    ws_url = service.url.replace("http", "ws") + f"/v1/patterns/{p['id']}/ws?since={start}"
    with connect(ws_url) as ws:
        events = []
        while len(events) < 2:
            msg = json.loads(ws.recv(10))
            if msg["event"] == "delta":
                events.append(dict(msg["data"], event="delta"))
    _check_events(events, p, mirror, start, start + 2)


def test_resume_with_last_event_id_gets_exactly_the_missed_events(service, client, push, mirror):
    p = client.register_pattern("triangle")
    start = mirror.version
    push([(30, 31), (31, 32), (30, 32)])
    seen = []
    for ev in client.deltas(p["id"], since=start):
        seen.append(ev)
        break  # disconnect mid-stream
    push([(32, 33), (31, 33)])
    push([], [(30, 31)])
    with httpx.stream("GET", f"{service.url}/v1/patterns/{p['id']}/deltas",
                      headers={"Last-Event-ID": str(seen[-1]["version"])}, timeout=10) as r:
        lines = []
        for line in r.iter_lines():
            lines.append(line)
            if sum(1 for x in lines if x.startswith("data: ")) == 2:
                break
    ids = [int(x[4:]) for x in lines if x.startswith("id: ")]
    assert ids == [start + 2, start + 3]
    assert [x for x in lines if x.startswith("event: ")] == ["event: delta", "event: delta"]


def test_cursor_older_than_retention_gets_reset(service, client, push, mirror):
    p = client.register_pattern("triangle")
    start = mirror.version
    for i in range(10):  # retention is 8 events
        push([(40 + i, 41 + i)])
    ev = next(iter(client.deltas(p["id"], since=start)))
    assert ev["event"] == "reset"
    assert ev["version"] == mirror.version and ev["total"] == len(mirror.matches(p))


def test_idle_stream_sends_keepalive_comments(service, client):
    p = client.register_pattern("triangle")
    with httpx.stream("GET", f"{service.url}/v1/patterns/{p['id']}/deltas", timeout=10) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        assert r.headers["x-accel-buffering"] == "no"
        for line in r.iter_lines():
            if line == ": keep-alive":  # the test service sends one every second
                break


def test_max_matches_caps_listings_and_keeps_counts_exact(service, client, push, mirror):
    p = client.register_pattern("triangle")
    start = mirror.version
    push([(50, 51), (50, 52), (50, 53), (51, 52), (51, 53), (52, 53)])  # K4: four triangles
    ev = next(iter(client.deltas(p["id"], since=start, max_matches=1)))
    assert ev["added_count"] == 4 and len(ev["added"]) == 1 and ev["truncated"] is True
    ev = next(iter(client.deltas(p["id"], since=start, matches=False)))
    assert "added" not in ev and ev["added_count"] == 4


def test_matches_are_listed_sorted_and_paged(service, client, mirror):
    p = client.register_pattern("triangle")
    expected = sorted(mirror.matches(p))
    got = client.matches(p["id"], limit=1000)
    assert [tuple(m) for m in got["matches"]] == expected
    assert got["total"] == len(expected) and got["version"] == mirror.version
    page = client.matches(p["id"], limit=2, offset=1)
    assert [tuple(m) for m in page["matches"]] == expected[1:3]


def test_matches_of_a_pattern_past_the_listing_bound_are_a_409(service, client, push):
    push([(7000, leaf) for leaf in range(7001, 7071)])  # a star of 70 leaves: C(70, 3) 3-stars
    p = client.register_pattern("3-star")
    with pytest.raises(DeltamatchError) as err:
        client.matches(p["id"], limit=10)
    total = client.pattern(p["id"])["total"]
    assert total >= 54740 and err.value.status == 409 and f"{total} current matches" in err.value.detail


def test_duplicate_batch_id_returns_the_original_answer(client, push, mirror):
    first = push([(60, 61)], batch_id="dup-1")
    again = client.update(insert=[[61, 62]], batch_id="dup-1")
    assert again["version"] == first["version"] and again["inserted"] == first["inserted"]
    assert again["duplicate"] is True
    assert client.cluster()["graph"]["version"] == mirror.version


def test_load_accepts_json_npy_snap_and_server_paths(service, client, push, mirror):
    p = client.register_pattern("triangle")
    answers = []
    edges = [(70, 71), (71, 72), (70, 72)]
    answers.append(client.http.post("/v1/graph/load", json={"edges": [list(e) for e in edges]}).json())
    mirror.apply(answers[-1], edges)
    answers.append(client.load_edges(np.array([[72, 73], [71, 73]])))
    mirror.apply(answers[-1], [(72, 73), (71, 73)])
    r = client.http.post("/v1/graph/load", content=b"# snap\n73 74\n74 72\n",
                         headers={"Content-Type": "text/plain"})
    answers.append(r.json())
    mirror.apply(answers[-1], [(73, 74), (74, 72)])
    (service.data_dir.parent / "small.txt").write_text("74 75\n75 73\n")
    answers.append(client.http.post("/v1/graph/load", json={"path": "small.txt"}).json())
    mirror.apply(answers[-1], [(74, 75), (75, 73)])
    assert [a["inserted"] for a in answers] == [3, 2, 2, 2]
    assert answers[-1]["deltas"][str(p["id"])]["total"] == len(mirror.matches(p))
    assert client.cluster()["graph"]["edges"] == len(mirror.edges)


def test_cluster_reports_two_cpu_workers_and_graph_stats(client, mirror):
    info = client.cluster()
    assert [w["backend"] for w in info["workers"]] == ["cpu", "cpu"]
    assert [w["share_scheme"] for w in info["workers"]] == ["cpu formulas=True"] * 2
    assert info["graph"]["edges"] == len(mirror.edges)
    assert info["graph"]["vertices"] == len({x for e in mirror.edges for x in e})
    assert info["graph"]["version"] == mirror.version


def test_metrics_expose_batches_latency_and_worker_busy_time(service, client, push):
    push([(80, 81)])
    text = httpx.get(f"{service.url}/metrics").text
    assert 'deltamatch_batches_total{kind="batch"}' in text
    assert "deltamatch_batch_latency_seconds_bucket" in text
    assert 'deltamatch_worker_busy_seconds_total{worker="1"}' in text
    assert "deltamatch_worker_imbalance" in text


def test_metrics_break_each_batch_down_by_stage(service, client, push):
    push([(82, 83)])
    text = httpx.get(f"{service.url}/metrics").text
    for stage in ("request", "scheduler_call", "intake", "allocation", "transport", "graph_update",
                  "matching", "commit", "merge", "log"):
        assert f'deltamatch_batch_stage_seconds_count{{stage="{stage}"}}' in text, stage


def _scheduler_calls(url: str) -> dict[str, float]:
    """`deltamatch_scheduler_calls_total` by path (channel, ray)."""
    out = {}
    for line in httpx.get(f"{url}/metrics").text.splitlines():
        if line.startswith("deltamatch_scheduler_calls_total{"):
            out[line.split('path="', 1)[1].split('"', 1)[0]] = float(line.rsplit(" ", 1)[1])
    return out


def test_batches_reach_the_scheduler_over_the_direct_channel(service, client, push, mirror):
    tri = client.register_pattern("triangle")
    before = _scheduler_calls(service.url)
    answer = push([(84, 85), (85, 86), (84, 86)])
    after = _scheduler_calls(service.url)
    assert after["channel"] == before.get("channel", 0) + 1
    assert after["ray"] == before["ray"]
    assert answer["deltas"][str(tri["id"])]["total"] == len(mirror.matches(tri))
    client.delete_pattern(tri["id"])


def test_with_the_direct_channel_off_batches_go_through_ray(make_service):
    svc = make_service(DELTAMATCH_DIRECT_CHANNEL="0")
    svc.start()
    with DeltamatchClient(svc.url) as c:
        tri = c.register_pattern("triangle")
        answer = c.update(insert=[[0, 1], [1, 2], [0, 2], [2, 3]])
        before = _scheduler_calls(svc.url)
        c.update(delete=[[0, 1]])
    after = _scheduler_calls(svc.url)
    assert answer["deltas"][str(tri["id"])] == {"added": 1, "removed": 0, "total": 1}
    assert "channel" not in after and after["ray"] == before["ray"] + 1


def test_health_ready_docs_and_ui_redirect(service):
    assert httpx.get(f"{service.url}/healthz").json() == {"status": "ok"}
    assert httpx.get(f"{service.url}/readyz").status_code == 200
    assert "/v1/updates" in httpx.get(f"{service.url}/openapi.json").json()["paths"]
    r = httpx.get(f"{service.url}/", follow_redirects=False)
    assert r.status_code in (302, 307) and r.headers["location"] == "/ui/"


# bad input: each class gets its status code and changes nothing ------------------------

def _state(client) -> tuple:
    info = client.cluster()
    totals = tuple((p["id"], p["total"]) for p in client.patterns())
    return info["graph"]["version"], info["graph"]["edges"], totals


BAD_UPDATES = {
    "malformed-json": (b'{"insert": [[1, 2]', 400, "malformed JSON"),
    "not-an-object": (b"[[1, 2]]", 422, "JSON object"),
    "unknown-field": (b'{"inserts": [[1, 2]]}', 422, "inserts"),
    "negative-id": (b'{"insert": [[1, 2], [-1, 3]]}', 422, "insert[1]"),
    "oversized-id": (b'{"insert": [[1, 2147483648]]}', 422, "insert[0]"),
    "huge-int": (b'{"insert": [[1, 99999999999999999999999]]}', 422, "insert[0]"),
    "boolean-id-insert": (b'{"insert": [[1, 2], [true, 7]]}', 422, "insert[1]: vertex ids are integers"),
    "boolean-id-delete": (b'{"delete": [[true, 2]]}', 422, "delete[0]: vertex ids are integers or strings"),
    "self-loop": (b'{"insert": [[90, 91]], "delete": [[5, 5]]}', 422, "delete[0]"),
    "float-id": (b'{"insert": [[1, 2.5]]}', 422, "insert[0]"),
    "string-id": (b'{"insert": [["1", 2]]}', 422, "insert[0]"),
    "not-a-pair": (b'{"insert": [[1, 2], [1, 2, 3]]}', 422, "insert[1]"),
    "empty-pair": (b'{"insert": [[]]}', 422, "insert[0]"),
    "not-a-list": (b'{"delete": 7}', 422, "delete"),
    "bad-batch-id": (b'{"insert": [[1, 2]], "batch_id": 5}', 422, "batch_id"),
    "over-batch-limit": (json.dumps({"insert": [[i, i + 1] for i in range(501)]}).encode(), 413, "limit"),
    "over-byte-limit": (b'{"insert": [' + b"[1, 2], " * 40000 + b"[1, 2]]}", 413, "limit"),
}


@pytest.mark.parametrize("case", sorted(BAD_UPDATES))
def test_bad_update_is_rejected_whole(client, case):
    body, status, needle = BAD_UPDATES[case]
    before = _state(client)
    r = client.http.post("/v1/updates", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == status
    assert needle in r.json()["detail"]
    assert _state(client) == before


BAD_PATTERNS = {
    "disconnected": ({"edges": [[0, 1], [2, 3]]}, 422, "disconnected"),
    "too-many-vertices": ({"edges": [[i, i + 1] for i in range(8)]}, 422, "at most 8"),
    "self-loop": ({"edges": [[0, 1], [1, 1]]}, 422, "self-loop"),
    "malformed-edge": ({"edges": [[0, 1, 2]]}, 422, "edges"),
    "unknown-name": ({"name": "pentagram"}, 422, "unknown pattern"),
    "unknown-field": ({"name": "triangle", "shape": 1}, 422, "shape"),
    "nothing-given": ({}, 422, "edges"),
    "string-vertices": ({"edges": [["0", "1"], ["1", "2"], ["2", "0"]]}, 422, "edges.0.0"),
    "float-vertices": ({"edges": [[0.0, 1.0], [1.0, 2.0], [2.0, 0.0]]}, 422, "edges.0.0"),
    "boolean-vertices": ({"edges": [[False, True]]}, 422, "edges.0.0"),
    "string-induced": ({"name": "triangle", "induced": "yes"}, 422, "induced"),
    "gap-in-vertices": ({"edges": [[0, 1], [1, 3], [3, 0]]}, 422, "edges"),
}


@pytest.mark.parametrize("case", sorted(BAD_PATTERNS))
def test_bad_pattern_is_rejected(client, case):
    body, status, needle = BAD_PATTERNS[case]
    before = _state(client)
    r = client.http.post("/v1/patterns", json=body)
    assert r.status_code == status
    assert needle in r.json()["detail"]
    assert _state(client) == before


def _npy_header_only(rows: int) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<i8", "fortran_order": False, "shape": (rows, 2)})
    return buf.getvalue() + bytes(64)


RAW = {"Content-Type": "application/octet-stream"}
BAD_LOADS = {
    "boolean-id": ({"json": {"edges": [[True, 9]]}}, 422, "edges[0]: vertex ids are integers or strings"),
    "path-not-a-string": ({"json": {"path": 123}}, 422, "path"),
    "path-a-list": ({"json": {"path": ["ok.txt"]}}, 422, "path"),
    "path-with-nul": ({"json": {"path": "ok\u0000.txt"}}, 422, "NUL"),
    "npy-header-2^36-rows": ({"content": _npy_header_only(2**36), "headers": RAW}, 413, "68719476736"),
    "mtx-header-10^12-entries": ({"content": b"%%MatrixMarket matrix coordinate pattern general\n"
                                             b"9 9 1000000000000\n1 2\n", "headers": RAW}, 413, "declares"),
    "mtx-dense": ({"content": b"%%MatrixMarket matrix array real general\n100000 100000\n", "headers": RAW},
                  422, "dense"),
    "gzip-bomb": ({"content": gzip.compress(b"1 2\n" * (1 << 20)), "headers": RAW}, 413, "inflates"),
}


@pytest.mark.parametrize("case", sorted(BAD_LOADS))
def test_bad_load_is_rejected(client, case):
    kwargs, status, needle = BAD_LOADS[case]
    before = _state(client)
    r = client.http.post("/v1/graph/load", **kwargs)
    assert r.status_code == status
    assert needle in r.json()["detail"]
    assert _state(client) == before


@pytest.mark.parametrize("route", ["/v1/updates", "/v1/patterns", "/v1/graph/load"])
def test_malformed_json_is_400_on_every_route(client, route):
    before = _state(client)
    r = client.http.post(route, content=b'{"edges": [[0, 1]', headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "malformed JSON" in r.json()["detail"]
    assert _state(client) == before


def test_pattern_body_over_the_byte_limit_is_413(client):
    before = _state(client)
    r = client.http.post("/v1/patterns", json={"name": "x" * 100, "edges": [[0, 1]] * 60000})
    assert r.status_code == 413 and "limit" in r.json()["detail"]
    assert _state(client) == before


def test_token_is_checked_before_the_body_is_read(service, client):
    """A 200 MB body is announced but never sent: only a call that reads no body can answer."""
    before = _state(client)
    with socket.create_connection(("127.0.0.1", service.port), timeout=5) as s:
        s.sendall(b"POST /v1/patterns HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 209715200\r\n\r\n{")
        head = s.recv(4096).decode()
    assert head.startswith("HTTP/1.1 401") and "application/json" in head
    assert _state(client) == before


def test_bad_load_body_is_rejected(client):
    before = _state(client)
    r = client.http.post("/v1/graph/load", content=b"1 2\nthree 4\n", headers={"Content-Type": "text/plain"})
    assert r.status_code == 422 and "body:2" in r.json()["detail"]
    r = client.http.post("/v1/graph/load", json={"path": "../../etc/passwd"})
    assert r.status_code == 403
    assert _state(client) == before


def test_mutating_calls_need_the_token(service, client, token):
    before = _state(client)
    anon = DeltamatchClient(service.url)
    with pytest.raises(DeltamatchError) as err:
        anon.update(insert=[[1, 2]])
    assert err.value.status == 401
    wrong = DeltamatchClient(service.url, token=token + "x")
    with pytest.raises(DeltamatchError) as err:
        wrong.register_pattern("triangle")
    assert err.value.status == 401
    assert anon.patterns() == client.patterns()  # reads stay open
    assert _state(client) == before


def test_unknown_pattern_is_404(client):
    calls = (lambda: client.pattern(9999), lambda: client.matches(9999), lambda: client.delete_pattern(9999))
    for call in calls:
        with pytest.raises(DeltamatchError) as err:
            call()
        assert err.value.status == 404
    r = client.http.get("/v1/patterns/9999/deltas")
    assert r.status_code == 404


def test_deleted_pattern_is_gone(client):
    p = client.register_pattern("diamond")
    assert client.delete_pattern(p["id"])["deleted"] is True
    assert p["id"] not in [q["id"] for q in client.patterns()]


# durability ---------------------------------------------------------------------------

def test_kill9_and_restart_keep_version_totals_and_batch_ids(make_service):
    svc = make_service(DELTAMATCH_SNAPSHOT_EVERY="3")
    svc.start()
    c = DeltamatchClient(svc.url)
    tri = c.register_pattern("triangle")
    ind = c.register_pattern("4-cycle", induced=True)
    rng = random.Random(3)
    answers = [c.update(insert=[_pair(rng, 0, 10) for _ in range(8)], batch_id=f"b{i}") for i in range(5)]
    answers.append(c.update(delete=[[0, 1], [2, 3]], batch_id="b5"))
    before = {p["id"]: p["total"] for p in c.patterns()}
    seen: list = []
    last = answers[-1]["version"]
    reader = threading.Thread(target=_collect_through_restart, args=(svc.url, tri["id"], last, seen),
                              daemon=True)
    reader.start()
    svc.kill9()
    svc.start()
    c2 = DeltamatchClient(svc.url)
    assert c2.cluster()["graph"]["version"] == answers[-1]["version"]
    assert {p["id"]: p["total"] for p in c2.patterns()} == before
    again = c2.update(insert=[[100, 101]], batch_id="b2")
    assert again["version"] == answers[2]["version"] and again["deltas"] == answers[2]["deltas"]
    fresh = c2.register_pattern("triangle")
    assert fresh["total"] == before[tri["id"]]
    assert c2.cluster()["graph"]["version"] == answers[-1]["version"]
    nxt = c2.update(insert=[[0, 1]], batch_id="b6")
    assert nxt["version"] == answers[-1]["version"] + 1
    assert nxt["deltas"][str(ind["id"])]["total"] == c2.pattern(ind["id"])["total"]
    reader.join(30)
    # the streaming client reconnected by itself and missed nothing
    assert [(e["event"], e["version"]) for e in seen] == [("delta", nxt["version"])]
    # a cursor from before the restart is older than the (empty) retained history
    assert next(iter(c2.deltas(tri["id"], since=answers[0]["version"])))["event"] == "reset"



def test_a_count_only_service_recounts_and_keeps_every_total(make_service):
    """Listing off and recounts forced: random batches with deletions on two workers, each formula
    pattern's running total equal to the reference and to a fresh registration's count."""
    svc = make_service(DELTAMATCH_MAX_LISTED="0", DELTAMATCH_RECOUNT="always")
    svc.start()
    rng = random.Random(11)
    edges: set[tuple[int, int]] = set()
    with DeltamatchClient(svc.url) as c:
        ids = {name: c.register_pattern(name)["id"] for name in ("house", "diamond", "4-cycle")}
        for _ in range(4):
            ins = {tuple(sorted(rng.sample(range(24), 2))) for _ in range(40)}
            dele = set(rng.sample(sorted(edges), min(len(edges), 8)))
            c.update(insert=[list(e) for e in ins], delete=[list(e) for e in dele])
            edges = (edges - dele) | ins
        for name, pid in ids.items():
            p = c.pattern(pid)
            want = len(reference_matches(edges, [tuple(e) for e in p["edges"]], p["k"], False))
            assert p["total"] == want == c.register_pattern(name)["total"], name
    text = httpx.get(f"{svc.url}/metrics").text
    # three patterns, four batches: every new side, and the old sides of the three with deletions
    assert 'deltamatch_recounts_total{side="new"} 12.0' in text
    assert 'deltamatch_recounts_total{side="old"} 9.0' in text
