"""CPU engine count path, switch by switch: kernel CPU time and work over a whole stream.

For each graph, order (file / shuffled), pattern and `EngineOptions` set, streams the
workload of `deltamatch bench` (90% loaded, the rest inserted in batches) and times only
`count_tasks` on the new side of each batch, on one thread, in CPU seconds of this thread
(so a shared, loaded machine inflates it far less than wall time), with the work counters
(candidates read, probes).  Every option set must find the same counts: the run stops
otherwise.  The build switch DELTAMATCH_CPU_NRT_FREE is read at import, so its two settings
are two runs (the CSV's nrt_free column).  Writes bench/results/cpu-kernel-work-<time>.csv
with commit, machine and date.
Not a test: run it by hand,
`python bench/cpu/kernel_work.py [--graphs email-Enron ca-HepPh] [--patterns triangle ...]`.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import os
import platform
import subprocess
import time
from pathlib import Path

import numba
import numpy as np

from deltamatch.bench.graphs import load_graph
from deltamatch.bench.workload import make_workload
from deltamatch.kernels import cpu_engine
from deltamatch.kernels.cpu_engine import EngineOptions
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.scheduler.plans import compile_plans, shared_plans
from deltamatch.scheduler.tasks import NEW, batch_tasks
from deltamatch.workers.graph import DynamicGraph

ROOT = Path(__file__).resolve().parents[2]
OPTION_SETS = {
    "all": EngineOptions(),
    "noset": EngineOptions(set_count=False),
    "noswap": EngineOptions(seed_swap=False),
    "nobits": EngineOptions(seed_bits=False),
    "nodrive": EngineOptions(drive_short=False),
    "nomemo": EngineOptions(last_memo=False),
    "norev": EngineOptions(reverse_last=False),
    "noreuse": EngineOptions(reuse_level2=False),
    "nofuse": EngineOptions(fuse_last=False),
    # The count path of round 2 (commit 24feb45): this round's three switches off.
    "round2": EngineOptions(last_memo=False, reverse_last=False, reuse_level2=False, fuse_last=False),
    "none": EngineOptions(set_count=False, seed_swap=False, seed_bits=False, drive_short=False,
                          last_memo=False, reverse_last=False, reuse_level2=False, fuse_last=False),
}


def stream(edges: np.ndarray, pattern_name: str, shuffle: int | None, batch: int,
           max_batches: int | None, names: list[str], per_plan: bool = False) -> dict[str, dict]:
    """Kernel CPU seconds, work and added count per option set over one workload.

    With `per_plan`, each plan's tasks are also counted alone: "plan_cpu_s", "plan_work"
    and "plan_added" per option set hold one entry per plan (the same tasks, so their
    added counts sum to "added").
    """
    pattern = parse_pattern(pattern_name)
    table = compile_plans(pattern, shared_plans(pattern))
    workload = make_workload(edges, batch_size=batch, shuffle=shuffle, max_batches=max_batches)
    graph = DynamicGraph()
    graph.apply(graph.normalize(workload.initial, None))
    plans = table.order.shape[0]
    out = {name: {"cpu_s": 0.0, "work": np.zeros(2, np.int64), "added": 0, "plan_cpu_s": np.zeros(plans),
                  "plan_work": np.zeros((plans, 2), np.int64), "plan_added": np.zeros(plans, np.int64)}
           for name in names}
    for b in workload.batches:
        normalized = graph.normalize(b.insert, b.delete)
        graph.apply(normalized)
        view = graph.batch_view(normalized.changed)
        tasks = batch_tasks(table, normalized.changed, normalized.deleted.shape[0], NEW)
        for name in names:
            start = time.thread_time()
            counts = cpu_engine.count_tasks(graph.view(), table, tasks, view, work=out[name]["work"],
                                            options=OPTION_SETS[name])
            out[name]["cpu_s"] += time.thread_time() - start
            out[name]["added"] += int(counts.sum())
            for p in range(plans) if per_plan else ():
                alone = tasks.take(np.flatnonzero(tasks.plan == p))
                start = time.thread_time()
                counts = cpu_engine.count_tasks(graph.view(), table, alone, view,
                                                work=out[name]["plan_work"][p], options=OPTION_SETS[name])
                out[name]["plan_cpu_s"][p] += time.thread_time() - start
                out[name]["plan_added"][p] += int(counts.sum())
        graph.release(view)
    added = {r["added"] for r in out.values()}
    if len(added) != 1:
        raise SystemExit(f"option sets disagree on {pattern_name}: {out}")
    for r in out.values():
        r["updates"] = workload.updates
    return out


def _warm(pattern_name: str) -> None:
    """Compile the kernels for this pattern's plans (excluded from every measurement)."""
    clique = np.array([(u, v) for u in range(8) for v in range(u + 1, 8)], dtype=np.int64)
    stream(clique, pattern_name, None, 4, 2, list(OPTION_SETS))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", nargs="+", default=["email-Enron", "ca-HepPh"])
    ap.add_argument("--patterns", nargs="+", default=["triangle", "4-cycle", "diamond", "4-clique"])
    ap.add_argument("--options", nargs="+", default=list(OPTION_SETS), choices=list(OPTION_SETS))
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--max-batches", type=int, default=None, help="stream at most this many batches")
    ap.add_argument("--per-plan", action="store_true",
                    help="also time each plan's tasks alone (printed, and plan_* columns in the CSV)")
    ap.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "data"))
    args = ap.parse_args()
    numba.set_num_threads(1)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    stamp = datetime.datetime.now(datetime.UTC)
    meta = {"commit": commit, "machine": f"{platform.node()} {os.cpu_count()} cpus",
            "date": stamp.isoformat(timespec="seconds"), "load_1min": os.getloadavg()[0],
            "nrt_free": cpu_engine.NRT_FREE}
    rows = []
    for graph_name in args.graphs:
        edges = load_graph(graph_name, args.data_dir).edges
        for shuffle in (None, 1):
            for pattern_name in args.patterns:
                _warm(pattern_name)
                result = stream(edges, pattern_name, shuffle, args.batch, args.max_batches, args.options,
                                args.per_plan)
                for name, r in result.items():
                    row = {**meta, "graph": graph_name, "order": "file" if shuffle is None else "shuffle 1",
                           "pattern": pattern_name, "batch": args.batch, "options": name,
                           "updates": r["updates"], "added": r["added"], "kernel_cpu_s": round(r["cpu_s"], 4),
                           "kernel_updates_per_cpu_s": round(r["updates"] / max(r["cpu_s"], 1e-9)),
                           "candidates_read": int(r["work"][0]), "probes": int(r["work"][1])}
                    if args.per_plan:
                        row |= {"plan_cpu_s": " ".join(f"{x:.3f}" for x in r["plan_cpu_s"]),
                                "plan_candidates_read": " ".join(str(x) for x in r["plan_work"][:, 0]),
                                "plan_added": " ".join(str(x) for x in r["plan_added"])}
                    rows.append(row)
                    print(" ".join(f"{k}={v}" for k, v in row.items() if k not in meta), flush=True)
    path = ROOT / "bench" / "results" / f"cpu-kernel-work-{stamp:%Y%m%dT%H%M%SZ}.csv"
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(path)


if __name__ == "__main__":
    main()
