"""End to end through a running service: batches go through `DeltamatchClient(url).update`.

The service's graph must start empty.  The run bulk-loads the initial edges
(`load_edges`), registers the pattern (its static count), streams the batches, then
deletes the pattern and every edge again so the next case starts from an empty graph.
Latency here is the client's wall time per batch: HTTP, JSON, scheduler and workers.
"""

from __future__ import annotations

import os
import time

import numpy as np

from deltamatch.bench.engines import BatchRecord, EngineRun
from deltamatch.bench.workload import Workload
from deltamatch.scheduler.patterns import Pattern

CHUNK = 50_000


def run_rest(workload: Workload, pattern: Pattern, *, url: str, time_limit: float | None = None,
             on_batch=None) -> EngineRun:
    """The REST engine; `skipped` when the client module or the service is not there."""
    run = EngineRun("rest", "service", 0, 0)
    try:
        from deltamatch.service.client import DeltamatchClient
    except ImportError as exc:
        run.status, run.note = "skipped", f"no REST client: {exc}"
        return run
    client = DeltamatchClient(url, token=os.environ.get("DELTAMATCH_TOKEN"))
    if not client.healthy():
        run.status, run.note = "skipped", f"no service answering at {url}"
        client.close()
        return run
    info = client.cluster()
    edges = info.get("graph", {}).get("edges", 0)
    if edges:
        run.status, run.note = "skipped", f"the service's graph is not empty ({edges} edges)"
        client.close()
        return run
    run.workers = len(info.get("workers", []))
    run.backend = ",".join(sorted({str(w.get("backend")) for w in info.get("workers", [])})) or "service"
    _warm_up(client, pattern)
    pid = None
    try:
        start = time.perf_counter()
        client.load_edges(workload.initial)
        reg = client.register_pattern(name=pattern.name, edges=list(pattern.edges), induced=pattern.induced)
        pid, run.initial_total = reg["id"], int(reg["total"])
        run.load_s = time.perf_counter() - start
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        for batch in workload.batches:
            if deadline is not None and time.perf_counter() > deadline:
                run.status, run.note = "capped", f"time limit {time_limit:g} s"
                break
            t0 = time.perf_counter()
            out = client.update(batch.insert, batch.delete)
            latency = time.perf_counter() - t0
            d = out["deltas"][str(pid)]
            run.batches.append(BatchRecord(latency, float("nan"), int(d["added"]), int(d["removed"]),
                                           int(d["total"]), []))
            if on_batch:
                on_batch()
    finally:
        if pid is not None:
            client.delete_pattern(pid)
        present = _final_edges(workload, len(run.batches))
        for i in range(0, present.shape[0], CHUNK):
            client.update(None, present[i:i + CHUNK])
        client.close()
    return run


def _warm_up(client, pattern: Pattern) -> None:
    """One untimed pass (load, register, batch, clean up) on a tiny clique, so the service's
    workers compile their kernels before the timed batches."""
    top = 2**31 - 1
    clique = np.array([(top - 9 + u, top - 9 + v) for u in range(9) for v in range(u + 1, 9)])
    client.load_edges(clique[:20])
    pid = client.register_pattern(name=pattern.name, edges=list(pattern.edges), induced=pattern.induced)["id"]
    try:
        client.update(clique[20:], clique[:5])
    finally:
        client.delete_pattern(pid)
        client.update(None, clique[5:])


def _final_edges(workload: Workload, applied: int) -> np.ndarray:
    """The edge set after the load and the first `applied` batches."""
    present = {tuple(e) for e in workload.initial.tolist()}
    for batch in workload.batches[:applied]:
        present.difference_update(tuple(e) for e in batch.delete.tolist())
        present.update(tuple(e) for e in batch.insert.tolist())
    return np.array(sorted(present), dtype=np.int64).reshape(-1, 2)
