"""The recount route on a CUDA worker: count-only batches (10% deletions) of the house, diamond and
4-cycle registered together, under DELTAMATCH_RECOUNT=auto and never, through SchedulerCore with one
worker of the given backend.  Prints one line per batch: mode, size, seconds, sides recounted, totals.
    python recount_route.py BACKEND SCALE SIZE [SIZE ...]"""

import sys
import time

import numpy as np

from deltamatch.bench.rmat import rmat_edges
from deltamatch.scheduler.core import SchedulerCore, WorkerPool
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.scheduler.routing import Routing
from deltamatch.workers.replica import GraphReplica

backend, scale, sizes = sys.argv[1], int(sys.argv[2]), [int(x) for x in sys.argv[3:]]
edges = rmat_edges(scale)
edges = np.unique(np.sort(edges[edges[:, 0] != edges[:, 1]], axis=1), axis=0)
edges = edges[np.random.default_rng(3).permutation(edges.shape[0])]
names = ("house", "diamond", "4-cycle")
for size in sizes:
    for mode in ("auto", "never"):
        core = SchedulerCore(WorkerPool([GraphReplica(backend)]), list_limit=0, routing=Routing(recount=mode))
        base = edges[: edges.shape[0] - 2 * size]
        t0 = time.perf_counter()
        core.load(base)
        ids = {n: core.register(parse_pattern(n)).id for n in names}
        loaded = time.perf_counter() - t0
        print(f"{mode} rmat:{scale}: {base.shape[0]} edges loaded, patterns registered in {loaded:.1f} s")
        for b in range(2):
            new = edges[base.shape[0] + b * size: base.shape[0] + (b + 1) * size][: size - size // 10]
            gone = base[b * (size // 10): (b + 1) * (size // 10)]
            t0 = time.perf_counter()
            out = core.apply(new, gone)
            seconds = time.perf_counter() - t0
            sides = {n: "+".join(s for s in ("old", "new") if (ids[n], s) in out.recounted) or "-"
                     for n in names}
            totals = {n: out.deltas[ids[n]].total for n in names}
            print(f"{mode} size {size} batch {b}: {seconds:.3f} s recounted {sides} totals {totals}",
                  flush=True)
