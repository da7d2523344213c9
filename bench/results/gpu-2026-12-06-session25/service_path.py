"""Where the service's path spends a batch that bench_gpu.py times at a fraction of it (issue 17's
stand-in: four patterns on RMAT-20 took 9-14 s a batch of 1,000 with 10% deletions; bench_gpu.py
reads the house alone at 3.4 s), and what a CUDA worker's first count-only batch under
DELTAMATCH_RECOUNT=auto does that its second does not (2.1 s against 0.29 s on RMAT-18 at 10^4).

    python service_path.py listing BACKEND SCALE SIZE   # SchedulerCore, one replica, routing never
    python service_path.py first BACKEND SCALE SIZE     # a fresh core under auto, batches 0 and 1

`listing` runs a warm-up batch, then batches with the service's cap of 1,000 listed rows and with
none, in turn; `first` runs two count-only batches on a fresh core.  Every batch prints its time,
each (pattern, side)'s tasks and seconds on the worker, and the functions of ours that took the most
cumulative time under cProfile."""

import cProfile
import pstats
import sys
import time

import numpy as np

from deltamatch.bench.rmat import rmat_edges
from deltamatch.scheduler.core import SchedulerCore, WorkerPool
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.scheduler.routing import Routing
from deltamatch.workers.replica import GraphReplica

mode, backend, scale, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
edges = rmat_edges(scale)
edges = np.unique(np.sort(edges[edges[:, 0] != edges[:, 1]], axis=1), axis=0)
edges = edges[np.random.default_rng(3).permutation(edges.shape[0])]
names = ("4-clique", "diamond", "4-cycle", "house") if mode == "listing" else ("house", "diamond", "4-cycle")
rounds = 5 if mode == "listing" else 2
base = edges[: edges.shape[0] - rounds * size]
core = SchedulerCore(WorkerPool([GraphReplica(backend)]), list_limit=1000,
                     routing=Routing(recount="never" if mode == "listing" else "auto"))
t0 = time.perf_counter()
core.load(base)
ids = {core.register(parse_pattern(n)).id: n for n in names}
print(f"{mode} {backend} rmat:{scale}: {base.shape[0]} edges, {len(names)} patterns in "
      f"{time.perf_counter() - t0:.1f} s", flush=True)
for b in range(rounds):
    if mode == "listing":
        core.list_limit = 0 if b in (2, 4) else 1000
    else:
        core.list_limit = 0
    new = edges[base.shape[0] + b * size: base.shape[0] + (b + 1) * size][: size - size // 10]
    gone = base[b * (size // 10): (b + 1) * (size // 10)]
    profile = cProfile.Profile()
    t0 = time.perf_counter()
    profile.enable()
    out = core.apply(new, gone)
    profile.disable()
    seconds = time.perf_counter() - t0
    groups = {f"{ids[g.pattern]}/{g.side}": (g.tasks, round(g.seconds, 3)) for g in out.groups}
    print(f"batch {b} (listed cap {core.list_limit}): {seconds:.3f} s, update "
          f"{out.update_seconds:.3f} s, recounted {sorted(out.recounted)}; groups {groups}", flush=True)
    stats = pstats.Stats(profile)
    stats.sort_stats("cumulative")
    rows = [(f, s) for f, s in stats.stats.items() if "deltamatch" in f[0] or "cupy" in f[0]]
    rows.sort(key=lambda r: -r[1][3])
    for (path, line, fn), (_, calls, tottime, cumtime, _) in rows[:18]:
        print(f"    {cumtime:8.3f} cum {tottime:8.3f} own {calls:6d}x  {path.split('/')[-1]}:{line} {fn}")
