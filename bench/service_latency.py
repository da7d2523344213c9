"""Service overhead: per-batch latency through REST vs calling SchedulerCore directly.

Starts `deltamatch serve` (embedded Ray, N CPU workers) on a free loopback port, loads the
same random base graph into it and into an in-process SchedulerCore with N local replicas,
registers the same pattern, then times batches of each size (insert a fresh random set,
then delete it again, so the graph stays the same).  REST time is the client's wall time
(JSON encode, HTTP, scheduler actor, worker actors, fsync of the log, answer); `engine`
is the scheduler's own `elapsed_ms` inside the service.  Then where the time goes, per
stage (`BatchOutcome.stages()` in process, medians; the service's
`deltamatch_batch_stage_seconds` histograms from `/metrics`, means over each size's batches).

    python bench/service_latency.py [--sizes 100,100000] [--reps 30,4] [--pattern triangle]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

import httpx
import numpy as np

from deltamatch.scheduler.core import SchedulerCore, WorkerPool
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.service.client import DeltamatchClient
from deltamatch.workers.replica import GraphReplica


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _random_edges(rng, n: int, m: int) -> np.ndarray:
    e = rng.integers(0, n, (m, 2))
    e = e[e[:, 0] != e[:, 1]]
    lo, hi = np.minimum(e[:, 0], e[:, 1]), np.maximum(e[:, 0], e[:, 1])
    return np.unique(np.stack([lo, hi], axis=1), axis=0)


def _stage_totals(url: str) -> dict[str, tuple[float, float]]:
    """(sum, count) of each stage histogram in the service's /metrics."""
    out: dict[str, list[float]] = {}
    for line in httpx.get(f"{url}/metrics").text.splitlines():
        for part, i in (("_sum{", 0), ("_count{", 1)):
            if line.startswith("deltamatch_batch_stage_seconds" + part):
                stage = line.split('stage="', 1)[1].split('"', 1)[0]
                out.setdefault(stage, [0.0, 0.0])[i] = float(line.rsplit(" ", 1)[1])
    return {k: (v[0], v[1]) for k, v in out.items()}


def _pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(xs) * 1e3, q))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vertices", type=int, default=200_000)
    ap.add_argument("--edges", type=int, default=1_000_000)
    ap.add_argument("--sizes", default="100,100000")
    ap.add_argument("--reps", default="30,4")
    ap.add_argument("--pattern", default="triangle")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    reps = [int(x) for x in args.reps.split(",")]
    rng = np.random.default_rng(0)
    base = _random_edges(rng, args.vertices, args.edges)
    batches = {
        s: [_random_edges(rng, args.vertices, s) for _ in range(r)] for s, r in zip(sizes, reps, strict=True)
    }

    core = SchedulerCore(WorkerPool([GraphReplica("cpu") for _ in range(args.workers)]))
    core.load(base)
    core.register(parse_pattern(args.pattern))
    core.apply(batches[sizes[0]][0], None)  # warm the numba dispatch
    core.apply(None, batches[sizes[0]][0])
    direct: dict[int, list[float]] = {}
    direct_stages: dict[int, dict[str, float]] = {}
    for s in sizes:
        direct[s] = []
        stages: dict[str, list[float]] = {}
        for b in batches[s]:
            for ins, dele in ((b, None), (None, b)):
                t0 = time.perf_counter()
                out = core.apply(ins, dele)
                direct[s].append(time.perf_counter() - t0)
                for stage, seconds in out.stages().items():
                    stages.setdefault(stage, []).append(seconds)
        direct_stages[s] = {k: float(np.median(v)) for k, v in stages.items()}

    port = _free_port()
    data = tempfile.mkdtemp(prefix="dm-bench-")
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "deltamatch.commands.serve",
            "--port",
            str(port),
            "--workers",
            str(args.workers),
            "--backend",
            "cpu",
            "--data-dir",
            data,
            "--log-level",
            "warning",
        ],
        env=env,
        start_new_session=True,
    )
    rest: dict[int, list[float]] = {}
    engine: dict[int, list[float]] = {}
    service_stages: dict[int, dict[str, float]] = {}
    url = f"http://127.0.0.1:{port}"
    try:
        client = DeltamatchClient(url)
        client.wait_ready(120)
        client.load_edges(base)
        pid = str(client.register_pattern(args.pattern)["id"])
        client.update(batches[sizes[0]][0], None)
        client.update(None, batches[sizes[0]][0])
        for s in sizes:
            rest[s], engine[s] = [], []
            before = _stage_totals(url)
            for b in batches[s]:
                for ins, dele in ((b, None), (None, b)):
                    t0 = time.perf_counter()
                    out = client.update(ins, dele)
                    rest[s].append(time.perf_counter() - t0)
                    engine[s].append(out["elapsed_ms"] / 1e3)
            after = _stage_totals(url)
            service_stages[s] = {k: (after[k][0] - before.get(k, (0.0, 0.0))[0])
                                 / max(after[k][1] - before.get(k, (0.0, 0.0))[1], 1) for k in after}
        assert out["deltas"][pid]["total"] == next(iter(core.patterns.values())).total
        client.close()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)

    print(
        f"graph: {args.vertices} vertices, {base.shape[0]} edges; pattern {args.pattern}; "
        f"{args.workers} CPU workers; {os.cpu_count()} cores"
    )
    print(
        "| batch edges | direct SchedulerCore p50 / p99 ms | REST p50 / p99 ms | scheduler inside "
        "the service p50 ms | REST overhead p50 ms |"
    )
    print("|---|---|---|---|---|")
    for s in sizes:
        print(
            f"| {s} | {_pct(direct[s], 50):.1f} / {_pct(direct[s], 99):.1f} | {_pct(rest[s], 50):.1f} / "
            f"{_pct(rest[s], 99):.1f} | {_pct(engine[s], 50):.1f} | "
            f"{_pct(rest[s], 50) - _pct(direct[s], 50):.1f} |"
        )
    names = sorted({k for d in (*direct_stages.values(), *service_stages.values()) for k in d})
    print("\nstages, ms (in process: median / in the service: mean)")
    print("| stage | " + " | ".join(str(s) for s in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for k in names:
        nan = float("nan")
        cells = [f"{direct_stages[s].get(k, nan) * 1e3:.2f} / {service_stages[s].get(k, nan) * 1e3:.2f}"
                 for s in sizes]
        print(f"| {k} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
