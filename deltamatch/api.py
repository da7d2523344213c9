"""The library: count, list and keep current a pattern's matches, in this process.

No service and no Ray: a `Matcher` drives the same scheduler and engine the service
runs, on one local replica (CPU, or the GPU when `backend` picks it).  A `graph` may be
an (n, 2) array or a list of pairs, a `networkx` graph, a pandas DataFrame (columns
`source` and `target`, or those named by `source=`/`target=`), or the path of an edge
file (SNAP text, CSV/TSV, Matrix Market, `.npy`; gzip allowed; `source=`/`target=` pick
its id columns by header name or position).  Vertex ids are integers or strings (one kind per graph); listed
matches come back in the caller's ids (SPEC §1).  A pattern is a built-in name
("triangle", "4-cycle", …), an edge string such as "0-1,1-2,2-0", or a list of pairs
over 0..k-1.

>>> import deltamatch
>>> deltamatch.count([(1, 2), (2, 3), (3, 1), (3, 4)], "triangle")
1
>>> deltamatch.matches([("ann", "bob"), ("bob", "cy"), ("cy", "ann")], "triangle")
[('ann', 'bob', 'cy')]
>>> m = deltamatch.Matcher(backend="cpu")
>>> m.load([("ann", "bob"), ("bob", "cy")])
1
>>> tri = m.register("triangle")
>>> m.apply(insert=[("cy", "ann")])[tri]
Delta(added=1, removed=0, total=1, added_matches=[('ann', 'bob', 'cy')], removed_matches=[])
>>> m.apply(delete=[("ann", "bob")])[tri].removed
1
>>> m.total(tri)
0
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from deltamatch.io.readers import read_edges
from deltamatch.scheduler.core import SchedulerCore, WorkerPool
from deltamatch.scheduler.names import parse_vertex_pairs
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.workers.replica import GraphReplica


@dataclass(frozen=True)
class Delta:
    """One pattern's change in one batch: counts (exact), the new total, and the matches
    added and removed, as tuples in the caller's vertex ids (listed form, sorted)."""

    added: int
    removed: int
    total: int
    added_matches: list[tuple]
    removed_matches: list[tuple]


Column = str | int | None


def edge_pairs(graph, *, source: Column = None, target: Column = None) -> np.ndarray:
    """The (n, 2) array of vertex ids (int64 or str) of any accepted `graph` (module
    docstring).  Self-loops of a networkx graph, a DataFrame or a file are dropped; in a
    plain edge list they are an error."""
    if isinstance(graph, (str, Path)):
        columns = (0 if source is None else source, 1 if target is None else target)
        return parse_vertex_pairs(read_edges(graph, columns), str(graph))
    if hasattr(graph, "columns") and hasattr(graph, "to_numpy"):  # a pandas DataFrame
        columns = ["source" if source is None else source, "target" if target is None else target]
        pairs = graph[columns].to_numpy()
        return parse_vertex_pairs(pairs[pairs[:, 0] != pairs[:, 1]], "graph")
    if hasattr(graph, "edges") and hasattr(graph, "nodes"):  # a networkx graph
        return parse_vertex_pairs([(u, v) for u, v in graph.edges() if u != v], "graph")
    return parse_vertex_pairs(graph, "graph")


def _rows(listed: np.ndarray) -> list[tuple]:
    return [tuple(row) for row in listed.tolist()]


class Matcher:
    """In-process incremental matching: load a graph, register patterns, apply batches.

    `backend` is "auto" (the GPU when CuPy sees one, else the CPU), "cpu" or "cuda".
    At most `list_limit` matches per pattern and side are listed in a `Delta`; its
    counts and totals are exact regardless.
    """

    def __init__(self, backend: str = "auto", *, list_limit: int = 10_000):
        # one replica: nothing to balance, so no cost model ("even")
        self.core = SchedulerCore(WorkerPool([GraphReplica(backend)]), list_limit=list_limit, policy="even")

    @property
    def version(self) -> int:
        """Batches applied so far (a load counts as one)."""
        return self.core.version

    @property
    def backend(self) -> str:
        """The engine this matcher runs on: "cpu" or "cuda"."""
        return self.core.pool.replicas[0].backend.name

    def load(self, graph, *, source: Column = None, target: Column = None) -> int:
        """Add every edge of `graph` as one batch, without listing; returns the version."""
        return self.core.load(edge_pairs(graph, source=source, target=target)).version

    def register(self, pattern, induced: bool = False) -> int:
        """Start keeping `pattern`'s matches current; returns its id.  Its total starts at
        the count on the current graph."""
        return self.core.register(parse_pattern(pattern, induced)).id

    def unregister(self, pattern_id: int) -> None:
        """Stop keeping a pattern current."""
        self.core.unregister(pattern_id)

    def apply(self, insert=None, delete=None) -> dict[int, Delta]:
        """Apply one batch atomically (`G = (G - delete) ∪ insert`); returns each
        registered pattern's `Delta`."""
        outcome = self.core.apply(insert, delete)
        return {pid: Delta(d.added_count, d.removed_count, d.total, _rows(d.added), _rows(d.removed))
                for pid, d in outcome.deltas.items()}

    def total(self, pattern_id: int) -> int:
        """The pattern's current number of matches."""
        return self.core.patterns[pattern_id].total

    def matches(self, pattern_id: int, limit: int | None = None) -> list[tuple]:
        """The pattern's current matches in listed form, sorted; the first `limit` of them."""
        return _rows(self.core.matches(pattern_id)[:limit])


def count(graph, pattern, *, induced: bool = False, backend: str = "auto",
          source: Column = None, target: Column = None) -> int:
    """The number of matches of `pattern` in `graph` (SPEC §1 semantics)."""
    matcher = Matcher(backend)
    matcher.load(graph, source=source, target=target)
    return matcher.total(matcher.register(pattern, induced))


def matches(graph, pattern, *, induced: bool = False, limit: int | None = None, backend: str = "auto",
            source: Column = None, target: Column = None) -> list[tuple]:
    """The matches of `pattern` in `graph`, as sorted tuples of the caller's vertex ids
    (listed form: the smallest of a match's equivalent tuples); the first `limit`."""
    matcher = Matcher(backend)
    matcher.load(graph, source=source, target=target)
    return matcher.matches(matcher.register(pattern, induced), limit)
