"""Where a `cpu-1` batch's time goes outside the kernel: CPU ms per batch, stage by stage.

Runs what `deltamatch bench --engines cpu-1` runs per batch (`bench.engines.run_incremental`:
`SchedulerCore` over one in-process replica with the CPU backend, policy `even`, no listing,
one numba thread) over the bench's workload (90% of the edges loaded, the rest inserted in
batches), and times each stage with the process's CPU clock (`time.process_time`: a shared,
loaded machine inflates it less than wall time).  Stages are timed by wrapping the functions
that do them, so the wrappers add about 2 us per timed call; `kernel` is `_run_serial`, the
counting search itself.  Each repetition reloads the graph and replays the whole stream; the
table gives every repetition and the median.  It also checks the final total against the
first repetition's.  Not a test: run it by hand (it works on older trees too: a stage whose
function is missing reads 0),
`python bench/cpu/batch_path.py [--graph email-Enron] [--pattern triangle] [--shuffle 1] [--reps 7]`.
"""

from __future__ import annotations

import argparse
import os
import time
from collections import defaultdict
from collections.abc import Callable

import numba

from deltamatch.bench import engines
from deltamatch.bench.graphs import load_graph
from deltamatch.bench.workload import make_workload
from deltamatch.kernels import cpu_engine
from deltamatch.scheduler import core, intake
from deltamatch.scheduler.core import SchedulerCore, WorkerPool
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.workers import backends, replica

STAGES = ("total", "kernel", "outside kernel", "encode", "normalize", "tasks", "allocation", "batch view",
          "count (Python)", "apply (replica)", "apply (scheduler)", "release", "execute (rest)", "merge",
          "core (rest)")


def _timed(seconds: dict[str, float], enabled: list[bool]) -> Callable[[object, str, str], None]:
    def wrap(owner: object, name: str, stage: str) -> None:
        if not hasattr(owner, name):
            return
        inner = getattr(owner, name)

        def timed(*args, **kwargs):
            if not enabled[0]:
                return inner(*args, **kwargs)
            start = time.process_time()
            try:
                return inner(*args, **kwargs)
            finally:
                seconds[stage] += time.process_time() - start

        setattr(owner, name, timed)

    return wrap


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--graph", default="email-Enron")
    ap.add_argument("--pattern", default="triangle")
    ap.add_argument("--shuffle", type=int, default=None)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--data-dir", default="data")
    args = ap.parse_args()
    seconds: dict[str, float] = defaultdict(float)
    enabled = [False]
    wrap = _timed(seconds, enabled)
    wrap(SchedulerCore, "apply", "total")
    wrap(SchedulerCore, "encode", "encode")
    wrap(intake.Intake, "normalize", "normalize")
    wrap(core, "batch_tasks", "tasks")
    for owner, name in ((SchedulerCore, "_policy_costs"), (core, "allocate"), (core, "split"),
                        (SchedulerCore, "_routes")):
        wrap(owner, name, "allocation")
    wrap(replica.GraphReplica, "execute", "execute")
    wrap(backends.CpuBackend, "batch_view", "batch view")
    wrap(backends.CpuBackend, "release", "release")
    wrap(backends.CpuBackend, "count", "count")
    wrap(cpu_engine, "_run_serial", "kernel")
    wrap(backends.CpuBackend, "apply", "apply (replica)")
    wrap(intake.Intake, "commit", "apply (scheduler)")
    wrap(core, "_merge", "merge")
    wrap(core.VertexNames, "listed", "merge")
    wrap(core.VertexNames, "commit", "merge")
    wrap(SchedulerCore, "_record", "merge")

    graph = load_graph(args.graph, args.data_dir)
    workload = make_workload(graph.edges, batch_size=args.batch, shuffle=args.shuffle)
    pattern = parse_pattern(args.pattern)
    engines.warm_up(pattern, ["cpu"], 1)
    numba.set_num_threads(1)
    rows, final = [], None
    for rep in range(args.reps):
        replicas = [engines._timed_replica("cpu")]
        sched = SchedulerCore(WorkerPool(replicas), shared=True, hoist=True, list_limit=0, policy="even")
        sched.load(workload.initial)
        reg = sched.register(pattern)
        seconds.clear()
        enabled[0] = True
        for batch in workload.batches:
            out = sched.apply(batch.insert, batch.delete)
        enabled[0] = False
        total = out.deltas[reg.id].total
        if final is not None and total != final:
            raise SystemExit(f"repetition {rep}: total {total}, first repetition {final}")
        final = total
        ms = {k: v / len(workload.batches) * 1e3 for k, v in seconds.items()}
        ms["outside kernel"] = ms["total"] - ms.get("kernel", 0.0)
        ms["count (Python)"] = ms.get("count", 0.0) - ms.get("kernel", 0.0)
        ms["execute (rest)"] = ms.get("execute", 0.0) - sum(
            ms.get(k, 0.0) for k in ("count", "batch view", "release", "apply (replica)"))
        scheduler = ("encode", "normalize", "tasks", "allocation", "apply (scheduler)", "merge")
        ms["core (rest)"] = ms["total"] - ms.get("execute", 0.0) - sum(ms.get(k, 0.0) for k in scheduler)
        rows.append(ms)
        load = os.getloadavg()[0]
        print(f"repetition {rep}: {ms['total']:.3f} ms per batch, 1-min load {load:.2f}", flush=True)
    order = "file order" if args.shuffle is None else f"shuffle {args.shuffle}"
    print(f"{args.graph} {order} {args.pattern}, {len(workload.batches)} batches of {args.batch}, "
          f"final total {final}; CPU ms per batch")
    print(f"{'stage':20s}" + "".join(f"{f'r{i}':>8s}" for i in range(len(rows))) + f"{'median':>9s}")
    for stage in STAGES:
        values = [r.get(stage, 0.0) for r in rows]
        median = sorted(values)[len(values) // 2]
        print(f"{stage:20s}" + "".join(f"{v:8.3f}" for v in values) + f"{median:9.3f}")


if __name__ == "__main__":
    main()
