"""networkx as a Python user would write it: update an `nx.Graph`, recount after every batch.

It runs in a child process so that its time budget can stop it mid-count; the parent
collects what it finished.  Triangles use `nx.triangles`, cliques `nx.enumerate_all_cliques`,
every other pattern VF2 (`GraphMatcher` monomorphisms, or isomorphisms when induced) / |Aut|.
"""

from __future__ import annotations

import multiprocessing
import time

import numpy as np

from deltamatch.bench.engines import BatchRecord, EngineRun
from deltamatch.bench.workload import Workload
from deltamatch.scheduler.patterns import Pattern


def method(pattern: Pattern) -> str:
    """Which networkx routine counts this pattern."""
    k, m = pattern.k, len(pattern.edges)
    if m == k * (k - 1) // 2:
        return "triangles" if k == 3 else "cliques"
    return "vf2-induced" if pattern.induced else "vf2-mono"


def count(graph, pattern: Pattern) -> int:
    """Matches of `pattern` in `graph` (an nx.Graph), by `method(pattern)`."""
    import networkx as nx

    how = method(pattern)
    if how == "triangles":
        return sum(nx.triangles(graph).values()) // 3
    if how == "cliques":
        found = 0
        for clique in nx.enumerate_all_cliques(graph):
            if len(clique) > pattern.k:
                break
            found += len(clique) == pattern.k
        return found
    matcher = nx.algorithms.isomorphism.GraphMatcher(graph, nx.Graph(list(pattern.edges)))
    maps = matcher.subgraph_isomorphisms_iter() if pattern.induced else matcher.subgraph_monomorphisms_iter()
    return sum(1 for _ in maps) // int(pattern.automorphisms.shape[0])


def _child(conn, initial: np.ndarray, batches: list, pattern: Pattern) -> None:
    import networkx as nx

    conn.send(("ready",))
    start = time.perf_counter()
    graph = nx.Graph()
    graph.add_edges_from(initial.tolist())
    conn.send(("load", time.perf_counter() - start, count(graph, pattern)))
    for insert, delete in batches:
        t0 = time.perf_counter()
        graph.remove_edges_from(delete.tolist())
        graph.add_edges_from(insert.tolist())
        update = time.perf_counter() - t0
        total = count(graph, pattern)
        conn.send(("batch", time.perf_counter() - t0, update, total))
    conn.send(("done",))


def run_networkx(workload: Workload, pattern: Pattern, *, max_edges: int, time_limit: float,
                 on_batch=None) -> EngineRun:
    """The networkx baseline, capped at `max_edges` graph edges and `time_limit` seconds of work."""
    run = EngineRun("networkx", "python", 1, 1, note=method(pattern))
    try:
        import networkx  # noqa: F401
    except ImportError:
        run.status, run.note = "skipped", "networkx not installed"
        return run
    size = workload.initial.shape[0] + sum(b.insert.shape[0] for b in workload.batches)
    if size > max_edges:
        run.status, run.note = "skipped", f"capped: {size} edges > --nx-max-edges {max_edges}"
        return run
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    batches = [(b.insert, b.delete) for b in workload.batches]
    proc = ctx.Process(target=_child, args=(child, workload.initial, batches, pattern), daemon=True)
    proc.start()
    child.close()
    try:
        if not parent.poll(120) or parent.recv()[0] != "ready":
            run.status, run.note = "failed", "networkx child did not start"
            return run
        deadline = time.perf_counter() + time_limit
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0 or not parent.poll(remaining):
                run.status = "capped"
                run.note = f"{method(pattern)}; time limit {time_limit:g} s"
                break
            try:
                msg = parent.recv()
            except EOFError:
                run.status, run.note = "failed", f"networkx child exited with {proc.exitcode}"
                break
            if msg[0] == "load":
                run.load_s, run.initial_total = msg[1], msg[2]
            elif msg[0] == "batch":
                run.batches.append(BatchRecord(msg[1], msg[2], -1, -1, msg[3], [msg[1]]))
                if on_batch:
                    on_batch()
            else:
                break
    finally:
        if proc.is_alive():
            proc.terminate()
        proc.join(10)
        parent.close()
    return run
