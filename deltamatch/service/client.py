"""A small synchronous client for the service (httpx): patterns, batches, loads, delta streams.

Errors from the service raise `DeltamatchError` carrying the status code and the
service's `detail`.  `deltas()` reconnects by itself after a dropped connection,
resuming with Last-Event-ID, so a caller sees every version exactly once (or a
`reset` event when the service no longer retains the missed ones).
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator

import httpx
import numpy as np


class DeltamatchError(RuntimeError):
    """A 4xx/5xx answer from the service."""

    def __init__(self, status: int, detail):
        super().__init__(f"{status}: {detail}")
        self.status = status
        self.detail = detail


class ServiceUnreachableError(DeltamatchError):
    """No answer at all: nothing listens at the URL, or the connection broke."""

    def __init__(self, url: str, exc: Exception):
        RuntimeError.__init__(self, f"cannot reach the service at {url} ({exc or type(exc).__name__}); "
                                    "is `deltamatch serve` running there?")
        self.status = None
        self.detail = str(exc)


def _pairs(edges) -> list:
    if edges is None:
        return []
    if isinstance(edges, np.ndarray):
        return edges.reshape(-1, 2).tolist()
    return [list(e) for e in edges]


class DeltamatchClient:
    """`DeltamatchClient("http://127.0.0.1:8000", token=None)`; methods return the SPEC §2.1 JSON."""

    def __init__(self, url: str = "http://127.0.0.1:8000", token: str | None = None, timeout: float = 600.0):
        self.url = url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.timeout = timeout
        self.http = httpx.Client(base_url=self.url, headers=self.headers, timeout=timeout)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> DeltamatchClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _check(self, r: httpx.Response):
        if r.status_code >= 400:
            try:
                detail = r.json().get("detail", r.text)
            except (ValueError, AttributeError):
                detail = r.text
            raise DeltamatchError(r.status_code, detail)
        return r.json()

    def _send(self, method: str, path: str, **kw) -> httpx.Response:
        try:
            return self.http.request(method, path, **kw)
        except httpx.TransportError as exc:
            raise ServiceUnreachableError(self.url, exc) from exc

    def _json(self, method: str, path: str, body=None, **kw):
        content = None if body is None else json.dumps(body, separators=(",", ":"))
        headers = {"Content-Type": "application/json"} if content is not None else {}
        return self._check(self._send(method, path, content=content, headers=headers, **kw))

    # service ---------------------------------------------------------------------
    def healthy(self) -> bool:
        try:
            return self.http.get("/healthz").status_code == 200
        except httpx.TransportError:
            return False

    def ready(self) -> bool:
        try:
            return self.http.get("/readyz").status_code == 200
        except httpx.TransportError:
            return False

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Block until /readyz answers 200."""
        deadline = time.monotonic() + timeout
        while not self.ready():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.url} not ready after {timeout} s")
            time.sleep(0.1)

    def cluster(self) -> dict:
        return self._json("GET", "/v1/cluster")

    # patterns --------------------------------------------------------------------
    def register_pattern(self, name: str | None = None, edges=None, induced: bool = False) -> dict:
        """Register a built-in (`name`) or an edge list (`edges`, `name` as its label)."""
        body: dict = {"induced": bool(induced)}
        if name is not None:
            body["name"] = name
        if edges is not None:
            body["edges"] = _pairs(edges)
        return self._json("POST", "/v1/patterns", body)

    def patterns(self) -> list[dict]:
        return self._json("GET", "/v1/patterns")

    def pattern(self, pattern_id: int) -> dict:
        return self._json("GET", f"/v1/patterns/{pattern_id}")

    def delete_pattern(self, pattern_id: int) -> dict:
        return self._json("DELETE", f"/v1/patterns/{pattern_id}")

    def matches(self, pattern_id: int, limit: int | None = None, offset: int = 0) -> dict:
        params = {"offset": offset}
        if limit is not None:
            params["limit"] = limit
        return self._json("GET", f"/v1/patterns/{pattern_id}/matches", params=params)

    # graph -------------------------------------------------------------------------
    def update(self, insert=None, delete=None, batch_id: str | None = None) -> dict:
        """Apply one batch; answers version, inserted/deleted/ignored and per-pattern deltas."""
        body: dict = {"insert": _pairs(insert), "delete": _pairs(delete)}
        if batch_id is not None:
            body["batch_id"] = batch_id
        return self._json("POST", "/v1/updates", body)

    def load_edges(self, pairs, batch_id: str | None = None) -> dict:
        """Bulk-load pairs as one version (integer ids as .npy bytes, names as JSON)."""
        arr = np.asarray(pairs).reshape(-1, 2)
        if arr.dtype.kind not in "iu":
            body: dict = {"edges": arr.tolist()}
            if batch_id is not None:
                body["batch_id"] = batch_id
            return self._json("POST", "/v1/graph/load", body)
        buf = io.BytesIO()
        np.save(buf, arr.astype(np.int64))
        params = {"batch_id": batch_id} if batch_id else {}
        r = self._send("POST", "/v1/graph/load", content=buf.getvalue(), params=params,
                       headers={"Content-Type": "application/octet-stream"})
        return self._check(r)

    def clear_graph(self) -> dict:
        """Remove every edge as one version (`DELETE /v1/graph`); patterns stay registered."""
        return self._json("DELETE", "/v1/graph")

    def load_file(self, path: str) -> dict:
        """Upload an edge file (SNAP text, Matrix Market, .npy; gzip allowed) as one version."""
        with open(path, "rb") as f:
            r = self._send("POST", "/v1/graph/load", content=f.read(),
                           headers={"Content-Type": "application/octet-stream"})
        return self._check(r)

    # streams -------------------------------------------------------------------------
    def deltas(self, pattern_id: int, since: int | None = None, matches: bool = True,
               max_matches: int | None = None, retries: int = 10,
               read_timeout: float = 60.0) -> Iterator[dict]:
        """Iterate over the SSE stream: each item is the event's data plus `event`
        ("delta" or "reset").  Reconnects after a dropped connection (or a 503 while the
        service restarts) with Last-Event-ID; gives up after `retries` consecutive failures."""
        params: dict = {"matches": "true" if matches else "false"}
        if max_matches is not None:
            params["max_matches"] = max_matches
        if since is not None:
            params["since"] = since
        last_id = None if since is None else str(since)
        failures = 0
        timeout = httpx.Timeout(self.timeout, read=read_timeout)
        while True:
            headers = {"Accept": "text/event-stream"}
            if last_id is not None:
                headers["Last-Event-ID"] = last_id
            try:
                with self.http.stream("GET", f"/v1/patterns/{pattern_id}/deltas", params=params,
                                      headers=headers, timeout=timeout) as r:
                    if r.status_code == 503 and failures < retries:
                        raise _Unavailable()
                    if r.status_code >= 400:
                        r.read()
                        self._check(r)
                    failures = 0
                    for event, eid, data in _parse_sse(r.iter_lines()):
                        if eid is not None:
                            last_id = eid
                        if data is not None:
                            yield dict(json.loads(data), event=event)
                return
            except (httpx.TransportError, _Unavailable):
                failures += 1
                if failures > retries:
                    raise
                time.sleep(min(2.0, 0.1 * 2**failures))


class _Unavailable(Exception):
    """The service answered 503 (starting up): worth another attempt."""


def _parse_sse(lines: Iterator[str]) -> Iterator[tuple[str, str | None, str | None]]:
    """(event, id, data) per dispatched SSE event; comments and retry lines skipped."""
    event, eid, data = "message", None, []
    for line in lines:
        if line == "":
            if data:
                yield event, eid, "\n".join(data)
            event, data = "message", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            event = value
        elif field == "data":
            data.append(value)
        elif field == "id":
            eid = value
