"""Where a pattern's batch goes, plan by plan: GPU time, counters and the CPU engine per plan.

A batch's tasks run every plan of the pattern (one per seeded pattern edge); bench_gpu.py times
them together.  This script loads the first 90% of RMAT scale `--scale` into the device graph,
inserts `--batches` batches of `--size` edges and counts each plan's new-side tasks apart: the
GPU's wall time (median of `--repeats`, after one untimed run), the kernel statistics of one
more run (lanes, per-warp busy spread, deferral, sharing, entries scanned and probes) and, with
`--cpu`, the CPU engine on all host threads over the same tasks (counts checked equal).  Prints
each plan's line as it is measured (its GPU/CPU ratio names the plan that holds a pattern under
its goal against the CPU engine), then the batch's sums.

    python bench/gpu/plan_split.py --scale 18 --size 1000 --pattern house --cpu [--balance nomemo] [--kept]
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_gpu import BALANCES, balance_note, host_batch_view, host_rows, loaded_rmat, log, tick  # noqa: E402

from deltamatch.kernels import cpu_engine, plan_table  # noqa: E402
from deltamatch.kernels import cuda_engine as engine  # noqa: E402
from deltamatch.scheduler.patterns import parse_pattern  # noqa: E402
from deltamatch.scheduler.plans import compile_plans, shared_plans  # noqa: E402
from deltamatch.scheduler.tasks import NEW, batch_tasks  # noqa: E402


def plan_line(p: int, order, tasks: int, matches: int, seconds: float, cpu_s: float | None,
              stats: engine.KernelStats) -> str:
    cpu = f"cpu {cpu_s * 1e3:10.1f} ms ({cpu_s / seconds:6.1f}x)" if cpu_s is not None else ""
    return (f"  plan {p} order {order} {tasks:>6d} tasks {matches:>14d} matches  gpu {seconds * 1e3:9.2f} ms "
            f"{cpu}  scanned {stats.scanned} probes {stats.probes} "
            f"{balance_note(stats)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=18)
    ap.add_argument("--size", type=int, default=1000)
    ap.add_argument("--batches", type=int, default=1)
    ap.add_argument("--pattern", default="house")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--cpu", action=argparse.BooleanOptionalAction, default=False)
    ap.add_argument("--balance", default="all", help="the bench_gpu.py setting of the GPU runs (e.g. nomemo)")
    ap.add_argument("--kept", action="store_true",
                    help="the graph keeps its edges' triangles, and last levels at sizes 4 to 8 read them "
                         "(plan_table.KEPT_LAST_SIZES; statistics runs match them: that build has no kept)")
    args = ap.parse_args()
    balance = BALANCES[args.balance]
    engine.warm_up(balance.builds())
    edges, n, cut, g = loaded_rmat(args.scale)
    if args.kept:
        plan_table.KEPT_LAST_SIZES = (4, 5, 6, 7, 8)
        g.keep_triangles(True)
    pattern = parse_pattern(args.pattern)
    plans = compile_plans(pattern, shared_plans(pattern))
    log(f"rmat:{args.scale}: {edges.shape[0]} edges, {cut} loaded; {args.pattern}: "
        f"{plans.order.shape[0]} plans; {args.batches} insert batches of {args.size}; balance {args.balance}")
    for b in range(args.batches):
        ins = edges[cut + b * args.size: cut + (b + 1) * args.size]
        g.apply(ins[:0], ins)
        host_view = host_batch_view(ins, n)
        view = engine.device_batch(host_view)
        host = host_rows(g) if args.cpu else None
        tasks = batch_tasks(plans, ins, 0, NEW)
        total = 0.0
        cpu_total = 0.0
        for p in range(plans.order.shape[0]):
            mine = tasks.take(np.flatnonzero(tasks.plan == p))
            run = partial(engine.count_tasks, g.view(), plans, mine, view, plans.induced, balance=balance)
            counts = run()
            times = []
            for _ in range(args.repeats):
                t = tick()
                run()
                times.append(tick() - t)
            seconds = float(np.median(times))
            total += seconds
            stats = engine.KernelStats()
            run(stats=stats)
            cpu_s = None
            if host is not None:
                t = time.perf_counter()
                cpu_counts = cpu_engine.count_tasks(host, plans, mine, host_view)
                cpu_s = time.perf_counter() - t
                cpu_total += cpu_s
                if not np.array_equal(cpu_counts, counts):
                    log(f"  !! plan {p}: GPU != CPU  MISMATCH")
            log(plan_line(p, plans.order[p].tolist(), mine.size, int(counts.sum()), seconds, cpu_s, stats))
        log(f"batch {b}: gpu {total * 1e3:.1f} ms" + (
            f", cpu {cpu_total * 1e3:.1f} ms ({cpu_total / total:.1f}x)" if host is not None else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
