"""Engine warm-up: one small session through every engine path, run before the service says ready.

numba compiles the CPU engine on its first call in each process (some 20 s on a cold
cache, a second or two from numba's disk cache), and CuPy loads its CUDA modules the
same way; a user's first batch should not pay for that.  `exercise` drives a
`SchedulerCore` through a bulk load into an empty graph (the parallel graph rewrite) with a
hub (heavy tasks, meant for a GPU worker's deferral and sharing paths and CuPy's kernels),
pattern registration (static counts), edge-induced, induced and hoisted plans, batches
above and below the parallel-launch thresholds with insertions and deletions, a row that
outgrows its block (relocation: on a GPU worker, CuPy compiles the scans it uses on first
use, seconds on an H200), a batch of present edges (the scheduler's parallel edge test), a batch
large enough for a GPU worker's table of changed pairs (numba builds it: 1.6 s on its first use),
listings, and string vertex names (so the listed form is computed under names as well).  The
scheduler's intake runs in the process that calls `exercise`, the engine in the workers'
processes; when the core's routing may match batches in the scheduler (`Routing.local`), the
engine's paths run there too.
"""

from __future__ import annotations

import numpy as np

from deltamatch.kernels.cuda_engine import PAIR_TABLE_MIN_PAIRS
from deltamatch.scheduler.core import SchedulerCore
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.scheduler.routing import Routing

# 5000 vertices: above the graph's parallel thresholds (4096 rows, 4096 pairs).
RING = 5000
GROWN = 200  # new neighbours of one vertex: more than its row's block holds
PATTERNS = (("triangle", False), ("house", False), ("4-cycle", True), ("diamond", False))


def _ring_edges(n: int) -> np.ndarray:
    """Each vertex joined to the next two around a ring, and every second one to a hub (vertex n),
    as string names."""
    i = np.arange(n)
    spokes = np.stack([np.full(n // 2, n), i[::2]], 1)
    pairs = np.concatenate([np.stack([i, (i + 1) % n], 1), np.stack([i, (i + 2) % n], 1), spokes])
    return np.char.add("w", pairs.astype(str))


def exercise(core: SchedulerCore) -> None:
    """Run the warm-up session on `core` (module docstring); leaves its graph populated."""
    edges = _ring_edges(RING)
    core.load(edges)
    for name, induced in PATTERNS:
        core.register(parse_pattern(name, induced))
    chords = np.char.add("w", np.stack([np.arange(0, 600, 3), np.arange(5, 605, 3)], 1).astype(str))
    core.apply(chords, edges[:300])  # hundreds of tasks: the parallel engine
    core.apply(edges[:2], chords[:2])  # a handful: the serial engine
    fresh = np.arange(RING + 1, RING + 1 + GROWN)
    star = np.char.add("w", np.stack([np.ones(GROWN, dtype=int), fresh], 1).astype(str))
    core.apply(star, None)  # vertex w1's row outgrows its block and moves
    core.apply(edges[2:], None)  # thousands of present edges: ignored after the parallel edge test
    # Edges between new vertices, none adjacent to another (so no task finds anything), as many
    # as give a GPU worker's batch its table of changed pairs; inserted, then deleted.
    matching = np.char.add("m", np.arange(2 * PAIR_TABLE_MIN_PAIRS).reshape(-1, 2).astype(str))
    core.apply(matching, None)
    core.apply(None, matching)
    routing = core.routing
    if routing.mode == "local" or routing.local_below > 0:
        core.routing = Routing("local")
        try:
            for part in (edges[:300], edges[:2]):  # hundreds of tasks, then a handful
                core.apply(None, part)
                core.apply(part, None)
        finally:
            core.routing = routing
    for pid in core.patterns:
        core.matches(pid)
