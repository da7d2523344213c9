"""CPU replay benchmark: `deltamatch replay` per pattern, one core vs all cores, vs a recount per batch.

Writes bench/results/cpu-replay-<time>.csv (one row per pattern and thread count) with the
commit, the machine and the date.  Not a test: run it by hand,
`python bench/cpu/replay_bench.py [--graph rmat:18:4] [--batch 1000] [--batches 5]`.
The whole-graph counts (the initial one and the recounts) run on all cores in every run
(`replay --count-threads`): the thread count under test is the stream's.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PATTERNS = ["triangle", "diamond", "4-clique", "4-cycle", "house"]


def replay(
    graph: str, pattern: str, threads: int, batch: int, batches: int, recount: bool, timeout: int,
    hoist: bool = True,
) -> tuple[dict, list[dict]] | None:
    cmd = [
        sys.executable,
        "-m",
        "deltamatch.cli",
        "replay",
        graph,
        "--pattern",
        pattern,
        "--batch",
        str(batch),
        "--max-batches",
        str(batches),
        "--threads",
        str(threads),
        "--count-threads",
        str(os.cpu_count()),
        "--json",
        "--shuffle",
        "1",
    ]
    if recount:
        cmd.append("--recount")
    if not hoist:
        cmd.append("--no-hoist")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT, check=True)
    except subprocess.TimeoutExpired:
        return None
    lines = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
    head = json.loads(next(x for x in proc.stderr.splitlines() if x.startswith("{")))
    return head, lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--graph", default="rmat:18:4")
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--batches", type=int, default=5)
    ap.add_argument("--patterns", nargs="*", default=PATTERNS)
    ap.add_argument("--timeout", type=int, default=1200)
    ap.add_argument("--threads", type=int, nargs="*", default=None, help="thread counts (default: 1 and all)")
    ap.add_argument(
        "--recount",
        choices=["all-cores", "never"],
        default="all-cores",
        help="recount after every batch in the all-cores run (default), or never",
    )
    ap.add_argument("--no-hoist", action="store_true", help="the hoisting ablation (replay --no-hoist)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results", help="results directory")
    args = ap.parse_args()
    # A copy without git history (the device machine) names its commit in DM_COMMIT.
    commit = os.environ.get("DM_COMMIT") or subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    cores = os.cpu_count()
    machine = (
        f"{cores}-core CPU ({platform.processor() or platform.machine()}), load avg {os.getloadavg()[0]:.1f}"
    )
    date = datetime.datetime.now(datetime.timezone.utc)
    out = args.out / f"cpu-replay-{date:%Y%m%dT%H%M%SZ}.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    fields = [
        "date",
        "commit",
        "machine",
        "graph",
        "vertices",
        "edges",
        "max_degree",
        "pattern",
        "threads",
        "hoist",
        "batch",
        "batches",
        "total",
        "static_seconds",
        "batch_p50_seconds",
        "batch_mean_seconds",
        "updates_per_second",
        "recount_mean_seconds",
        "recount_equal",
        "speedup_vs_recount",
    ]
    with out.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for pattern in args.patterns:
            for threads in args.threads or (1, cores):
                recount = threads == cores and args.recount == "all-cores"
                res = replay(args.graph, pattern, threads, args.batch, args.batches, recount, args.timeout,
                             hoist=not args.no_hoist)
                row = {
                    "date": date.isoformat(timespec="seconds"),
                    "commit": commit,
                    "machine": machine,
                    "graph": args.graph,
                    "pattern": pattern,
                    "threads": threads,
                    "hoist": not args.no_hoist,
                    "batch": args.batch,
                }
                if res is None:
                    row["batches"] = f"timeout {args.timeout}s"
                else:
                    head, lines = res
                    secs = [x["seconds"] for x in lines]
                    row.update(
                        vertices=head["vertices"],
                        edges=head["edges"],
                        max_degree=head["max_degree"],
                        batches=len(lines),
                        total=lines[-1]["total"] if lines else head["total"],
                        static_seconds=head["static_seconds"],
                        batch_p50_seconds=round(statistics.median(secs), 4),
                        batch_mean_seconds=round(statistics.mean(secs), 4),
                        updates_per_second=round(
                            sum(x["inserted"] + x["deleted"] for x in lines) / sum(secs)
                        ),
                    )
                    if lines and "recount_seconds" in lines[0]:
                        rc = statistics.mean(x["recount_seconds"] for x in lines)
                        row.update(
                            recount_mean_seconds=round(rc, 4),
                            recount_equal=all(x["recount"] == x["total"] for x in lines),
                            speedup_vs_recount=round(rc / statistics.mean(secs), 1),
                        )
                w.writerow(row)
                f.flush()
                print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
