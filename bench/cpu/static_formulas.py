"""Whole-graph counts on the CPU by formula (kernels/cpu_formulas.py) against a match run.

For each graph and pattern with a formula (the edge-induced diamond, 4-cycle and house): the
formula's count and wall time on all numba threads (best of --repeats, after one untimed count
that compiles), and the CPU engine's match run over the static tasks, the count a worker made
before the formulas, in a child process stopped after --match-limit seconds
(`deltamatch.bench.cpu_bound`: a stopped run gives a lower bound on its time).  The two counts
must agree.  Writes static-formulas-<time>.csv to --out with commit, machine and date, and
prints the table.  Not a test: run it by hand,
`python bench/cpu/static_formulas.py [--graphs email-Enron wiki-Vote rmat:16] [--patterns house]`.
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np

from deltamatch.bench.cpu_bound import count_within
from deltamatch.bench.graphs import load_graph
from deltamatch.bench.meta import run_metadata
from deltamatch.kernels.cpu_formulas import formula_count
from deltamatch.kernels.plan_table import TaskList
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.scheduler.plans import compile_plans, static_plan
from deltamatch.workers.graph import DynamicGraph

COLUMNS = ["graph", "vertices", "edges", "max_degree", "pattern", "count", "formula_s", "match_s",
           "match_stopped", "speedup", "commit", "device", "cores", "date"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", nargs="+", default=["email-Enron", "wiki-Vote", "rmat:16"])
    ap.add_argument("--patterns", nargs="+", default=["diamond", "4-cycle", "house"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--match-limit", type=float, default=300.0, help="seconds a match run may count")
    ap.add_argument("--out", default="bench/results")
    args = ap.parse_args()
    meta = run_metadata(with_gpu=False)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"static-formulas-{meta['date'].replace('-', '').replace(':', '')}.csv"
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for spec in args.graphs:
            graph = load_graph(spec)
            g = DynamicGraph()
            g.apply(g.normalize(np.asarray(graph.edges, dtype=np.int64), []))
            view = g.view()
            empty = g.batch_view(np.zeros((0, 2), dtype=np.int32))
            tasks = TaskList.static(g.internal_edges())
            print(f"{graph.name}: {g.num_vertices} vertices, {g.num_edges} edges, max degree {g.max_degree}",
                  flush=True)
            for name in args.patterns:
                pattern = parse_pattern(name)
                table = compile_plans(pattern, [static_plan(pattern)])
                count = formula_count(view, table)
                if count is None:
                    print(f"  {name}: no formula", flush=True)
                    continue
                times = []
                for _ in range(args.repeats):
                    start = time.perf_counter()
                    formula_count(view, table)
                    times.append(time.perf_counter() - start)
                matched = count_within(view, table, tasks, empty, limit_s=args.match_limit)
                matched_count = None if matched.stopped else int(matched.counts.sum())
                if matched_count not in (None, count):
                    raise SystemExit(f"{graph.name} {name}: formula {count}, match run {matched_count}")
                best = min(times)
                row = {**meta, "graph": graph.name, "vertices": g.num_vertices, "edges": g.num_edges,
                       "max_degree": g.max_degree, "pattern": name, "count": count, "formula_s": best,
                       "match_s": matched.seconds, "match_stopped": matched.stopped,
                       "speedup": matched.seconds / best}
                writer.writerow(row)
                f.flush()
                over = ">" if matched.stopped else ""
                print(f"  {name:8s} {count:>16d}  formula {best * 1e3:9.1f} ms  match run "
                      f"{over}{matched.seconds * 1e3:10.1f} ms  {over}{matched.seconds / best:6.1f}x")
            g.release(empty)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
