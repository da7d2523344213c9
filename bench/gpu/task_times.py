"""Each task of one batch counted alone: which tasks make phase 0's slowest warp (issue 19).

Loads the first 90% of RMAT scale `--scale` into the device graph, inserts the next `--size` edges
(as ncu_batch.py does), counts the addition side of `--pattern` once as a whole with the kernel's
counters, then each task by itself (one warp works, the card otherwise idle), and writes one CSV row
per task: seed endpoints and degrees, the size of their common neighbourhood, the task's count,
whether phase 0 deferred its level-2 set, and the busy time of its phase-0 warp and of phase 1's
busiest warp.  The log lists the tasks whose phase-0 warp worked longest beside the whole batch's
per-warp quantiles, so that what a slow warp does can be read off its seed.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_gpu import BALANCES, balance_note, host_batch_view, loaded_rmat, log, shared_plan_tables  # noqa: E402

from deltamatch.kernels import cuda_engine as engine  # noqa: E402
from deltamatch.scheduler.tasks import NEW, batch_tasks  # noqa: E402

FIELDS = ("task", "u", "v", "plan", "rank", "deg_u", "deg_v", "common", "count", "deferred",
          "phase0_us", "phase1_max_us", "launches")


def common_neighbours(offsets: np.ndarray, degree: np.ndarray, pool: np.ndarray, u: int, v: int) -> int:
    """|N(u) ∩ N(v)| in the host copy of the graph's rows (GpuGraph.rows_host)."""
    row_u = pool[offsets[u] : offsets[u] + degree[u]]
    row_v = pool[offsets[v] : offsets[v] + degree[v]]
    return int(np.intersect1d(row_u, row_v, assume_unique=True).size)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--size", type=int, default=1000)
    ap.add_argument("--pattern", default="4-clique")
    ap.add_argument("--balance", default="all", choices=sorted(BALANCES))
    ap.add_argument("--top", type=int, default=25, help="tasks listed by phase-0 busy time")
    ap.add_argument("--out", type=Path, required=True, help="CSV, one row per task")
    args = ap.parse_args()
    balance = BALANCES[args.balance]
    engine.warm_up(balance.builds())
    edges, n, cut, g = loaded_rmat(args.scale)
    ins = edges[cut : cut + args.size]
    g.apply(np.zeros((0, 2), np.int32), ins)
    view = engine.device_batch(host_batch_view(ins, n))
    plans = shared_plan_tables([args.pattern])[args.pattern]
    tasks = batch_tasks(plans, ins, 0, NEW)
    whole = engine.KernelStats()
    total = int(engine.count_tasks(g.view(), plans, tasks, view, balance=balance, stats=whole).sum())
    log(f"{args.pattern}: {tasks.size} tasks, {total} matches; whole batch: kernels "
        f"{whole.kernel_s * 1e3:.2f} ms, {balance_note(whole)}")
    offsets, degree, pool = g.rows_host()
    rows = []
    for i in range(tasks.size):
        st = engine.KernelStats()
        one = tasks.take(np.array([i]))
        count = int(engine.count_tasks(g.view(), plans, one, view, balance=balance, stats=st).sum())
        u, v = int(one.u[0]), int(one.v[0])
        rows.append({
            "task": i, "u": u, "v": v, "plan": int(one.plan[0]), "rank": int(one.rank[0]),
            "deg_u": int(degree[u]), "deg_v": int(degree[v]),
            "common": common_neighbours(offsets, degree, pool, u, v),
            "count": count, "deferred": st.deferred,
            "phase0_us": int(st.busy_ns[0].max(initial=0)) / 1e3,
            "phase1_max_us": max((int(b.max(initial=0)) for b in st.busy_ns[1:]), default=0) / 1e3,
            "launches": len(st.busy_ns),
        })
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    alone = np.array([r["phase0_us"] for r in rows])
    log("phase 0 alone, us min/p10/med/p90/max: "
        + "/".join(f"{q:.0f}" for q in np.percentile(alone, [0, 10, 50, 90, 100])))
    log("slowest phase-0 tasks: task u v plan rank deg_u deg_v common count deferred phase0_us phase1_max_us")
    for r in sorted(rows, key=lambda r: -r["phase0_us"])[: args.top]:
        log("  " + " ".join(str(r[k]) for k in FIELDS[:-1]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
