"""Per-batch latency of the service (issue 16's "done means"), end to end over HTTP and per stage.

Starts `deltamatch serve` through its command module (two workers sharing one card with
`--backend cuda`; `--backend cpu` is the dry run without a GPU) and measures, through a real
HTTP client on loopback:

  c. email-Enron, 1,000-edge batches, each pattern alone (triangle, 4-cycle, diamond, 4-clique,
     house): one service with every group forced to the GPU (`DELTAMATCH_ROUTE=gpu`), one to the
     workers' CPU engines (`cpu`), one to the scheduler's (`local`), then the routing thresholds
     those runs measure (below), then the auto-routed service with them: per-pattern batch
     latency of all four.
  a. on the auto-routed service: an RMAT graph of about 10^6 edges, triangle, 100-edge batches:
     p50/p99 end to end and per stage.
  b. on the same service: a larger RMAT graph, 4-clique + diamond + 4-cycle, batches of 10^4
     and 10^5 edges (10% deletions): end to end against the busiest worker's matching + graph
     update; the rest is the service's overhead.

End to end is the client's wall time from sending a pre-encoded body to holding the parsed
answer (the client's own JSON encoding is not the service's).  Stages are the service's
`deltamatch_batch_stage_seconds` histograms, read after every batch (the difference of
their sums is that batch's stages); `http` is what end to end leaves after the API's request
and scheduler call and the scheduler's own time.

Thresholds: `DELTAMATCH_ROUTE_CROSSOVER` is in the cost model's units, per worker's share of a
(pattern, side) group; `DELTAMATCH_ROUTE_LOCAL` per whole batch.  This script predicts each
batch's cost the way the scheduler does (`Intake` features, `predict_task_cost`; a share is the
larger side divided by the worker count: the greedy gives each worker about an equal share)
and picks the crossover that minimizes the total time of the forced runs' insert batches if
those below it had run on the CPU and the rest on the GPU, then the local threshold the same
way between the local run and the route the crossover picks.  `--crossover X --local Y` skip
the measurement.

Every part's batch count shrinks to fit `--time-budget` (seconds for the whole run, service
starts included); what is skipped is said.  Rows go to `--out`/service-latency-<date>.csv.

    python bench/gpu/service_latency.py --out DIR [--backend cuda|cpu] [--time-budget 300]
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from deltamatch.bench.graphs import load_graph  # noqa: E402
from deltamatch.scheduler.cost import plan_shape, predict_task_cost  # noqa: E402
from deltamatch.scheduler.intake import Intake  # noqa: E402
from deltamatch.scheduler.patterns import parse_pattern  # noqa: E402
from deltamatch.scheduler.plans import compile_plans, shared_plans  # noqa: E402
from deltamatch.scheduler.tasks import NEW, OLD, batch_tasks  # noqa: E402

# `deltamatch serve`, through its command module alone (robust to other subcommands' imports).
SERVE = (
    "import argparse, sys; from deltamatch.commands import serve; p = argparse.ArgumentParser(); "
    "serve.add_arguments(p); sys.exit(serve.run(p.parse_args()))"
)
ENRON = ROOT / "data" / "email-Enron.txt.gz"
ENRON_PATTERNS = ("triangle", "4-cycle", "diamond", "4-clique", "house")
STAGE_METRIC = "deltamatch_batch_stage_seconds_sum{"
FIELDS = ("part", "route", "channel", "graph", "edges", "patterns", "batch_edges", "batch", "kind", "e2e_ms",
          "scheduler_ms", "engine_ms", "busy_ms", "stages_ms", "date", "commit", "backend", "load")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Service:
    """One `deltamatch serve` process and an HTTP client to it."""

    def __init__(self, args: argparse.Namespace, route: str, crossover: float | None = None,
                 local: float | None = None, channel: str | None = None):
        self.port = free_port()
        env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", CUPY_GPU_MEMORY_LIMIT="40%",
                   DELTAMATCH_ROUTE=route)
        if channel is not None:  # the API -> scheduler direct channel (`DELTAMATCH_DIRECT_CHANNEL`)
            env["DELTAMATCH_DIRECT_CHANNEL"] = "1" if channel == "on" else "0"
        self.channel = channel or "default"
        if crossover is not None:
            env["DELTAMATCH_ROUTE_CROSSOVER"] = repr(crossover)
        if local is not None:
            env["DELTAMATCH_ROUTE_LOCAL"] = repr(local)
        share = str(1.0 / args.workers) if args.backend == "cuda" else "0"
        cmd = [sys.executable, "-c", SERVE, "--workers", str(args.workers), "--backend", args.backend,
               "--num-gpus-per-worker", share, "--port", str(self.port), "--log-level", "warning",
               "--data-dir", tempfile.mkdtemp(prefix="dm-latency-")]
        self.route = route
        t0 = time.perf_counter()
        self.proc = subprocess.Popen(cmd, env=env, cwd=ROOT)
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=600)
        while True:
            try:
                if self.http.get("/readyz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.perf_counter() - t0 > 300 or self.proc.poll() is not None:
                self.close()
                raise RuntimeError(f"service ({route}) did not become ready")
            time.sleep(0.5)
        self.start_seconds = time.perf_counter() - t0
        print(f"service route={route} crossover={crossover} local={local} channel={self.channel} "
              f"ready after {self.start_seconds:.1f} s", flush=True)

    def post(self, path: str, body: bytes, content_type: str = "application/json") -> dict:
        r = self.http.post(path, content=body, headers={"content-type": content_type})
        if r.status_code >= 400:
            raise RuntimeError(f"{path}: {r.status_code} {r.text[:300]}")
        return r.json()

    def load(self, edges: np.ndarray) -> dict:
        return self.post("/v1/graph/load", _npy(edges), "application/octet-stream")

    def register(self, name: str) -> int:
        return self.post("/v1/patterns", json.dumps({"name": name}).encode())["id"]

    def unregister(self, pid: int) -> None:
        self.http.delete(f"/v1/patterns/{pid}").raise_for_status()

    def clear(self) -> None:
        self.http.delete("/v1/graph").raise_for_status()

    def stages(self) -> dict[str, float]:
        """Each stage histogram's running sum (seconds)."""
        out = {}
        for line in self.http.get("/metrics").text.splitlines():
            if line.startswith(STAGE_METRIC):
                stage = line.split('stage="', 1)[1].split('"', 1)[0]
                out[stage] = float(line.rsplit(" ", 1)[1])
        return out

    def batch(self, body: bytes) -> tuple[float, dict, dict[str, float]]:
        """(end-to-end seconds, answer, this batch's stages in seconds, `http` the rest)."""
        before = self.stages()
        t0 = time.perf_counter()
        r = self.http.post("/v1/updates", content=body, headers={"content-type": "application/json"})
        answer = r.json()
        e2e = time.perf_counter() - t0
        if r.status_code != 200:
            raise RuntimeError(f"batch: {r.status_code} {answer}")
        after = self.stages()
        stages = {k: after[k] - before.get(k, 0.0) for k in after}
        inside = stages.get("request", 0.0) + stages.get("scheduler_call", 0.0) + stages.get("log", 0.0)
        stages["http"] = max(e2e - inside - answer["elapsed_ms"] / 1e3, 0.0)
        return e2e, answer, stages

    def close(self) -> None:
        self.http.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def _npy(edges: np.ndarray) -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(edges, dtype=np.int64))
    return buf.getvalue()


def _body(insert: np.ndarray | None, delete: np.ndarray | None) -> bytes:
    obj = {}
    if insert is not None and len(insert):
        obj["insert"] = insert.tolist()
    if delete is not None and len(delete):
        obj["delete"] = delete.tolist()
    return json.dumps(obj, separators=(",", ":")).encode()


@dataclass
class Run:
    """The rows written so far and the run's clock."""

    args: argparse.Namespace
    deadline: float
    rows: list[dict] = field(default_factory=list)
    meta: dict = field(default_factory=dict)
    path: Path = Path("service-latency.csv")

    def left(self) -> float:
        return self.deadline - time.perf_counter()

    def save(self) -> Path:
        """Write every row so far (after each part: a run cut short keeps what it measured)."""
        with self.path.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS)
            w.writeheader()
            w.writerows(self.rows)
        return self.path

    def record(self, part: str, route: str, graph: str, edges: int, patterns: str, kind: str, i: int,
               n: int, e2e: float, answer: dict, stages: dict[str, float]) -> dict:
        busy = stages.get("graph_update", 0.0) + stages.get("matching", 0.0)
        row = {"part": part, "route": route, "graph": graph, "edges": edges, "patterns": patterns,
               "batch_edges": n, "batch": i, "kind": kind, "e2e_ms": round(e2e * 1e3, 3),
               "scheduler_ms": round((e2e - stages.get("http", 0.0) - stages.get("request", 0.0)
                                      - stages.get("scheduler_call", 0.0)) * 1e3, 3),
               "engine_ms": answer.get("elapsed_ms"), "busy_ms": round(busy * 1e3, 3),
               "stages_ms": json.dumps({k: round(v * 1e3, 3) for k, v in sorted(stages.items())}),
               "load": f"{os.getloadavg()[0]:.2f}", **self.meta}
        self.rows.append(row)
        return row


def _pct(xs, q: float) -> float:
    return float(np.percentile(np.asarray(xs, dtype=float), q)) if len(xs) else float("nan")


def _stage_table(rows: list[dict]) -> str:
    stages = [json.loads(r["stages_ms"]) for r in rows]
    names = sorted({k for s in stages for k in s})
    lines = ["| stage | p50 ms | p99 ms | mean ms |", "|---|---|---|---|"]
    for k in names:
        v = [s.get(k, 0.0) for s in stages]
        lines.append(f"| {k} | {_pct(v, 50):.3f} | {_pct(v, 99):.3f} | {float(np.mean(v)):.3f} |")
    return "\n".join(lines)


# part a ------------------------------------------------------------------------------------

def part_a(run: Run, svc: Service, budget: float) -> None:
    """RMAT ~10^6 edges, triangle, small batches: insert a held-out set, then delete it."""
    args = run.args
    g = load_graph(args.graph_a)
    rng = np.random.default_rng(1)
    held = rng.permutation(g.edges.shape[0])[: args.batch_a * args.batches_a]
    base = np.delete(g.edges, held, axis=0)
    svc.clear()
    svc.load(base)
    pid = svc.register("triangle")
    chunks = np.array_split(g.edges[held], args.batches_a)
    bodies = [(_body(c, None), _body(None, c)) for c in chunks]
    for ins, dele in bodies[: args.warmup]:
        svc.batch(ins), svc.batch(dele)
    t0 = time.perf_counter()
    rows = []
    for i, (ins, dele) in enumerate(bodies[args.warmup:]):
        for kind, body in (("insert", ins), ("delete", dele)):
            time.sleep(args.pause_a)
            e2e, answer, stages = svc.batch(body)
            rows.append(run.record("a", svc.route, g.name, base.shape[0], "triangle", kind, i,
                                   args.batch_a, e2e, answer, stages))
        if time.perf_counter() - t0 > budget:
            print(f"part a: stopped after {i + 1} batch pairs ({budget:.0f} s budget)", flush=True)
            break
    svc.unregister(pid)
    e2e = [r["e2e_ms"] for r in rows]
    print(f"\n(a) {g.name}: {base.shape[0]} edges loaded, triangle, {args.batch_a}-edge batches, "
          f"{len(rows)} batches: end to end p50 {_pct(e2e, 50):.2f} ms, p99 {_pct(e2e, 99):.2f} ms "
          f"(load average {os.getloadavg()[0]:.2f})", flush=True)
    print(_stage_table(rows), flush=True)


# part b ------------------------------------------------------------------------------------

def part_b(run: Run, svc: Service, budget: float) -> None:
    """A larger RMAT graph, three patterns together, large mixed batches: the overhead share."""
    args = run.args
    g = load_graph(args.graph_b)
    sizes = [int(s) for s in args.sizes_b.split(",")]
    rng = np.random.default_rng(2)
    order = rng.permutation(g.edges.shape[0])
    pool = min(max(sizes), g.edges.shape[0] // 2)  # each batch inserts a sample of these, then undone
    held, kept = g.edges[order[:pool]], g.edges[order[pool:]]
    svc.clear()
    svc.load(kept)
    names = args.patterns_b.split(",")
    pids = [svc.register(n) for n in names]
    t_start = time.perf_counter()
    last = None  # (size, seconds of one batch)
    for size in sizes:
        n_del = size // 10
        for i in range(args.batches_b + 1):  # the first is a warm-up
            if last is not None:
                guess = last[1] * size / last[0]
                if time.perf_counter() - t_start + 2 * guess > budget:
                    print(f"part b: {size}-edge batches skipped (one predicted to take {guess:.1f} s, "
                          f"{budget - (time.perf_counter() - t_start):.0f} s left)", flush=True)
                    break
            ins = held[rng.choice(held.shape[0], min(size - n_del, held.shape[0]), replace=False)]
            dele = kept[rng.choice(kept.shape[0], n_del, replace=False)]
            e2e, answer, stages = svc.batch(_body(ins, dele))
            undo = _body(dele, ins)  # restore the graph (not timed as part of the result)
            svc.batch(undo)
            last = (size, e2e)
            if i == 0:
                continue
            row = run.record("b", svc.route, g.name, kept.shape[0], "+".join(names), "mixed", i, size,
                             e2e, answer, stages)
            share = 1 - row["busy_ms"] / row["e2e_ms"]
            print(f"(b) {size} edges #{i}: end to end {row['e2e_ms']:.1f} ms, busiest worker "
                  f"matching+update {row['busy_ms']:.1f} ms, overhead {share:.1%} "
                  f"(load {row['load']})", flush=True)
    for pid in pids:
        svc.unregister(pid)
    by_size: dict[int, list[dict]] = {}
    for r in run.rows:
        if r["part"] == "b":
            by_size.setdefault(r["batch_edges"], []).append(r)
    print(f"\n(b) {g.name}: {kept.shape[0]} edges loaded, {'+'.join(names)}", flush=True)
    print("| batch edges | batches | e2e p50 ms | matching+update p50 ms | overhead share p50 |\n"
          "|---|---|---|---|---|")
    for size, rows in by_size.items():
        shares = [1 - r["busy_ms"] / r["e2e_ms"] for r in rows]
        print(f"| {size} | {len(rows)} | {_pct([r['e2e_ms'] for r in rows], 50):.1f} | "
              f"{_pct([r['busy_ms'] for r in rows], 50):.1f} | {_pct(shares, 50):.1%} |")
    for size, rows in by_size.items():
        print(f"{size}-edge batches:\n{_stage_table(rows)}", flush=True)


# part c ------------------------------------------------------------------------------------

@dataclass
class Enron:
    """email-Enron: the loaded 90%, the streamed batches, and each batch's predicted cost per
    pattern as the scheduler's model gives it: `share` (a worker's share of the larger side's
    group, what `DELTAMATCH_ROUTE_CROSSOVER` is compared with) and `total` (both sides, every
    task: what `DELTAMATCH_ROUTE_LOCAL` is compared with)."""

    name: str
    base: np.ndarray
    batches: list[np.ndarray]
    share: dict[str, list[float]]
    total: dict[str, list[float]]


def enron_workload(args: argparse.Namespace) -> Enron:
    g = load_graph(args.graph_c)
    n_load = int(g.edges.shape[0] * 0.9)
    base, rest = g.edges[:n_load], g.edges[n_load:]
    batches = [rest[i: i + args.batch_c] for i in range(0, args.batch_c * args.batches_c, args.batch_c)]
    batches = [b for b in batches if b.shape[0] == args.batch_c]
    share: dict[str, list[float]] = {}
    total: dict[str, list[float]] = {}
    for name in ENRON_PATTERNS:
        pattern = parse_pattern(name)
        plans = compile_plans(pattern, shared_plans(pattern))
        shape = plan_shape(plans)
        intake = Intake()
        intake.commit(1, intake.normalize(base, None))
        share[name], total[name] = [], []
        for b in batches:  # each batch on the base graph: the service undoes it before the next
            batch = intake.normalize(b, None)
            feats = intake.features(batch, shape.needs_common)
            sides = [float(predict_task_cost(batch_tasks(plans, batch.changed, batch.deleted.shape[0], side),
                                             shape, feats.pairs, feats.side(side), neighbour_scan=True).sum())
                     for side in (OLD, NEW)]
            share[name].append(max(sides) / args.workers)
            total[name].append(sum(sides))
    return Enron(g.name, base, batches, share, total)


def part_c(run: Run, svc: Service, work: Enron, budget: float) -> None:
    """Each pattern alone: its batches (insert, timed) each undone by a deletion (timed too)."""
    args = run.args
    svc.clear()
    svc.load(work.base)
    t0 = time.perf_counter()
    per_pattern = budget / len(ENRON_PATTERNS)
    for j, name in enumerate(ENRON_PATTERNS):
        pid = svc.register(name)
        for i, b in enumerate(work.batches):
            e2e, answer, stages = svc.batch(_body(b, None))
            if i >= args.warmup:
                run.record("c", svc.route, work.name, work.base.shape[0], name, "insert", i, args.batch_c,
                           e2e, answer, stages)
            e2e, answer, stages = svc.batch(_body(None, b))
            if i >= args.warmup:
                run.record("c", svc.route, work.name, work.base.shape[0], name, "delete", i, args.batch_c,
                           e2e, answer, stages)
            if time.perf_counter() - t0 > (j + 1) * per_pattern:
                print(f"part c ({svc.route}): {name} stopped after {i + 1} batches", flush=True)
                break
        svc.unregister(pid)


def _insert_times(rows: list[dict]) -> dict[tuple[str, str, int], float]:
    """(route, pattern, batch) -> end-to-end ms of part c's insert batches."""
    return {(r["route"], r["patterns"], r["batch"]): r["e2e_ms"] for r in rows
            if r["part"] == "c" and r["kind"] == "insert"}


def best_threshold(points: list[tuple[float, float, float]]) -> float | None:
    """Given (predicted cost, ms below, ms above) per batch, the threshold t minimizing the total
    time when batches predicted below t take the first time and the rest the second (midway
    between two observed costs; 0 when none is better below; None without points)."""
    if not points:
        return None
    points = sorted(points)
    best, best_ms = 0.0, sum(above for _, _, above in points)
    for k in range(1, len(points) + 1):
        ms = sum(below for _, below, _ in points[:k]) + sum(above for _, _, above in points[k:])
        if ms < best_ms:
            nxt = points[k][0] if k < len(points) else 2 * points[k - 1][0]
            best, best_ms = (points[k - 1][0] + nxt) / 2, ms
    return best


def measured_crossover(rows: list[dict], work: Enron) -> float | None:
    """`DELTAMATCH_ROUTE_CROSSOVER` from the forced cpu and gpu runs."""
    t = _insert_times(rows)
    return best_threshold([(work.share[p][i], t[("cpu", p, i)], t[("gpu", p, i)])
                           for (route, p, i) in t if route == "cpu" and ("gpu", p, i) in t])


def measured_local(rows: list[dict], work: Enron, crossover: float) -> float | None:
    """`DELTAMATCH_ROUTE_LOCAL` from the forced local run against the route `crossover` picks."""
    t = _insert_times(rows)
    points = []
    for (route, p, i), ms in t.items():
        routed = ("cpu" if work.share[p][i] < crossover else "gpu", p, i)
        if route == "local" and routed in t:
            points.append((work.total[p][i], ms, t[routed]))
    return best_threshold(points)


def report_c(rows: list[dict], work: Enron) -> None:
    print(f"\n(c) {work.name}: {work.base.shape[0]} edges loaded, {rows[0]['batch_edges'] if rows else 0}"
          "-edge batches, each pattern alone; batch latency p50 ms (insert / delete) per route, auto's "
          "p50 over the best forced route's, predicted cost p50 (a worker's share of a group / the batch)")
    routes = [r for r in ("gpu", "cpu", "local", "auto") if any(x["route"] == r for x in rows)]
    print("| pattern | " + " | ".join(routes) + " | auto vs best | predicted share / total |\n|---|"
          + "---|" * (len(routes) + 2))
    for name in ENRON_PATTERNS:
        cells, p50 = [], {}
        for route in routes:
            got = {k: [r["e2e_ms"] for r in rows if r["route"] == route and r["patterns"] == name
                       and r["kind"] == k] for k in ("insert", "delete")}
            p50[route] = _pct(got["insert"] + got["delete"], 50)
            cells.append(f"{_pct(got['insert'], 50):.2f} / {_pct(got['delete'], 50):.2f}")
        best = min((p50[r] for r in ("gpu", "cpu", "local") if r in p50), default=float("nan"))
        ratio = p50["auto"] / best if "auto" in p50 else float("nan")
        print(f"| {name} | " + " | ".join(cells) + f" | {ratio:.2f}x | {_pct(work.share[name], 50):.3g} / "
              f"{_pct(work.total[name], 50):.3g} |")


# main --------------------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="directory for the CSV")
    ap.add_argument("--backend", default="cuda", choices=("cuda", "cpu"),
                    help="the workers' engine (cpu: a dry run without a GPU; routes then change nothing)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--time-budget", type=float, default=300.0, help="seconds for the whole run")
    ap.add_argument("--parts", default="c,a,b", help="which parts, in order c (Enron routes), a, b")
    ap.add_argument("--warmup", type=int, default=1, help="batches (pairs in a, c) not recorded")
    ap.add_argument("--graph-a", default="rmat:16")
    ap.add_argument("--batch-a", type=int, default=100)
    ap.add_argument("--batches-a", type=int, default=200, help="insert+delete pairs in (a)")
    ap.add_argument("--pause-a", type=float, default=0.0,
                    help="seconds between (a)'s batches: the same pace whatever a batch takes (on a "
                         "shared machine a faster service otherwise competes harder with its own background "
                         "work)")
    ap.add_argument("--graph-b", default="rmat:18")
    ap.add_argument("--sizes-b", default="10000,100000")
    ap.add_argument("--batches-b", type=int, default=3)
    ap.add_argument("--patterns-b", default="4-clique,diamond,4-cycle")
    ap.add_argument("--graph-c", default=str(ENRON) if ENRON.is_file() else "email-Enron",
                    help="a graph file or a shared graph's name (default data/email-Enron.txt.gz)")
    ap.add_argument("--batch-c", type=int, default=1000)
    ap.add_argument("--batches-c", type=int, default=8)
    ap.add_argument("--crossover", type=float, default=None,
                    help="use this DELTAMATCH_ROUTE_CROSSOVER for the auto run instead of measuring it")
    ap.add_argument("--local", type=float, default=None,
                    help="use this DELTAMATCH_ROUTE_LOCAL for the auto run instead of measuring it")
    ap.add_argument("--direct-channel", default="",
                    help="on,off (or one of them, in the order given): run the auto service's parts "
                         "once per setting of DELTAMATCH_DIRECT_CHANNEL, each on a service of its own, "
                         "and compare part a (default: the service's default, once)")
    args = ap.parse_args()
    if any(c not in ("on", "off") for c in filter(None, args.direct_channel.split(","))):
        ap.error("--direct-channel takes on, off or both, comma-separated")
    parts = args.parts.split(",")
    start = time.perf_counter()
    run = Run(args, start + args.time_budget)
    run.path = Path(args.out) / f"service-latency-{dt.datetime.now(dt.timezone.utc):%Y%m%dT%H%M%SZ}.csv"
    from deltamatch.bench.meta import commit

    run.meta = {"date": run.path.stem.rsplit("-", 1)[1], "commit": commit(), "backend": args.backend,
                "channel": "default"}
    run.path.parent.mkdir(parents=True, exist_ok=True)
    crossover, local = args.crossover, args.local
    work = enron_workload(args) if "c" in parts else None
    ok = True
    try:
        if "c" in parts and (crossover is None or local is None):
            # The forced runs get about half of the budget left once the services still to start
            # (this one's start time each: 15-150 s on the device, longer when cold) are set aside.
            forced = ("gpu", "cpu", "local")
            for k, route in enumerate(forced):
                svc = Service(args, route)
                starts_ahead = (len(forced) - k) * svc.start_seconds  # the other forced ones and auto
                try:
                    part_c(run, svc, work, max((run.left() - starts_ahead) * 0.55 / (len(forced) - k) - 5, 5))
                finally:
                    svc.close()
                    run.save()
            if crossover is None:
                crossover = measured_crossover(run.rows, work) or 0.0
            if local is None:
                local = measured_local(run.rows, work, crossover) or 0.0
            print(f"\nmeasured DELTAMATCH_ROUTE_CROSSOVER={crossover:.6g} (a worker's share of a group), "
                  f"DELTAMATCH_ROUTE_LOCAL={local:.6g} (a whole batch)", flush=True)
        rest = [p for p in parts if p in ("c", "a", "b")]
        channels = args.direct_channel.split(",") if args.direct_channel else [None]
        slots = len(rest) * len(channels)
        for c, channel in enumerate(channels):
            svc = Service(args, "auto", crossover, local, channel)
            run.meta["channel"] = svc.channel
            try:
                for k, part in enumerate(rest):
                    budget = run.left() / (slots - c * len(rest) - k) - 5
                    if budget <= 0:
                        print(f"part {part}: skipped, the time budget is spent", flush=True)
                        continue
                    if part == "c":
                        part_c(run, svc, work, budget)
                    elif part == "a":
                        part_a(run, svc, budget)
                    else:
                        part_b(run, svc, budget)
                    run.save()
            finally:
                svc.close()
    except Exception as exc:  # the rows so far are still written
        print(f"FAILED: {type(exc).__name__}: {exc}", flush=True)
        ok = False
    if work is not None:
        report_c([r for r in run.rows if r["part"] == "c"], work)
        print(f"thresholds of the auto run: DELTAMATCH_ROUTE_CROSSOVER={crossover}, "
              f"DELTAMATCH_ROUTE_LOCAL={local}")
    if args.direct_channel and "a" in parts:
        print("\n(a) by DELTAMATCH_DIRECT_CHANNEL (the API -> scheduler call over the scheduler's socket "
              "or through Ray):\n| channel | batches | e2e p50 ms | e2e p99 ms | scheduler_call p50 ms "
              "| http p50 ms |\n|---|---|---|---|---|---|")
        for channel in dict.fromkeys(args.direct_channel.split(",")):  # a setting run twice: one row
            rows = [r for r in run.rows if r["part"] == "a" and r["channel"] == channel]
            stages = [json.loads(r["stages_ms"]) for r in rows]
            print(f"| {channel} | {len(rows)} | {_pct([r['e2e_ms'] for r in rows], 50):.2f} | "
                  f"{_pct([r['e2e_ms'] for r in rows], 99):.2f} | "
                  f"{_pct([s.get('scheduler_call', 0.0) for s in stages], 50):.2f} | "
                  f"{_pct([s.get('http', 0.0) for s in stages], 50):.2f} |")
    path = run.save()
    print(f"\n{len(run.rows)} rows -> {path}; {time.perf_counter() - start:.0f} s "
          f"(load average {os.getloadavg()[0]:.2f})", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
