"""End to end through a running service: batches go through `DeltamatchClient(url).update`.

The service's graph must start empty.  The run loads the initial edges in chunks,
registers the pattern over REST (SPEC §2.1 shapes), streams the batches, then deletes
every edge and the pattern again so the next run starts from an empty graph.
"""

from __future__ import annotations

import os
import time

import numpy as np

from deltamatch.bench.engines import BatchRecord, EngineRun
from deltamatch.bench.workload import Workload
from deltamatch.scheduler.patterns import Pattern

LOAD_CHUNK = 50_000


def _field(answer, name: str):
    return answer[name] if isinstance(answer, dict) else getattr(answer, name)


def _headers() -> dict:
    token = os.environ.get("DELTAMATCH_TOKEN")
    return {"Authorization": f"Bearer {token}"} if token else {}


def _chunks(edges: np.ndarray):
    for i in range(0, edges.shape[0], LOAD_CHUNK):
        yield edges[i:i + LOAD_CHUNK].tolist()


def run_rest(workload: Workload, pattern: Pattern, *, url: str, time_limit: float | None = None,
             on_batch=None) -> EngineRun:
    """The REST engine; `skipped` when the client module or the service is not there."""
    run = EngineRun("rest", "service", 0, 0)
    try:
        import httpx

        from deltamatch.service.client import DeltamatchClient
    except ImportError as exc:
        run.status, run.note = "skipped", f"no REST client: {exc}"
        return run
    client = DeltamatchClient(url)
    http = httpx.Client(base_url=url, headers=_headers(), timeout=600)
    try:
        http.get("/healthz").raise_for_status()
    except httpx.HTTPError as exc:
        run.status, run.note = "skipped", f"no service at {url}: {exc}"
        return run
    edges = http.get("/v1/cluster").json().get("graph", {}).get("edges", 0)
    if edges:
        run.status, run.note = "skipped", f"the service's graph is not empty ({edges} edges)"
        return run
    pid = None
    try:
        start = time.perf_counter()
        for chunk in _chunks(workload.initial):
            client.update(chunk, [])
        answer = http.post("/v1/patterns", json={"edges": [list(e) for e in pattern.edges],
                                                 "induced": pattern.induced, "name": pattern.name})
        answer.raise_for_status()
        pid, run.initial_total = answer.json()["id"], int(answer.json()["total"])
        run.load_s = time.perf_counter() - start
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        for batch in workload.batches:
            if deadline is not None and time.perf_counter() > deadline:
                run.status, run.note = "capped", f"time limit {time_limit:g} s"
                break
            t0 = time.perf_counter()
            out = client.update(batch.insert.tolist(), batch.delete.tolist())
            latency = time.perf_counter() - t0
            deltas = _field(out, "deltas")
            d = deltas[str(pid)] if str(pid) in deltas else deltas[pid]
            run.batches.append(BatchRecord(latency, float("nan"), int(d["added"]), int(d["removed"]),
                                           int(d["total"]), []))
            if on_batch:
                on_batch()
    finally:
        if pid is not None:
            http.delete(f"/v1/patterns/{pid}", headers=_headers())
        present = _final_edges(workload, len(run.batches))
        for chunk in _chunks(present):
            client.update([], chunk)
        http.close()
    return run


def _final_edges(workload: Workload, applied: int) -> np.ndarray:
    """The edge set after the load and the first `applied` batches."""
    present = {tuple(e) for e in workload.initial.tolist()}
    for batch in workload.batches[:applied]:
        present.difference_update(tuple(e) for e in batch.delete.tolist())
        present.update(tuple(e) for e in batch.insert.tolist())
    return np.array(sorted(present), dtype=np.int64).reshape(-1, 2)
