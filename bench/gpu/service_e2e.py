"""The service end to end on the GPU: `deltamatch serve --workers 2 --backend cuda` with two worker
actors sharing one card (fractional num_gpus), checked batch by batch against a local CPU replica.

    python bench/gpu/service_e2e.py [--workers 2] [--batches 8]
Exit status 0 only when every delta and total equals the CPU's.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from deltamatch.scheduler.patterns import parse_pattern  # noqa: E402
from deltamatch.scheduler.plans import compile_plans, shared_plans, static_plan  # noqa: E402
from deltamatch.scheduler.tasks import NEW, OLD, batch_tasks  # noqa: E402
from deltamatch.workers.protocol import BatchPlan, PatternPlans  # noqa: E402
from deltamatch.workers.replica import GraphReplica  # noqa: E402

# `deltamatch serve`, through its command module alone (robust to other subcommands' imports).
SERVE = (
    "import argparse, sys; from deltamatch.commands import serve; p = argparse.ArgumentParser(); "
    "serve.add_arguments(p); sys.exit(serve.run(p.parse_args()))"
)
PATTERNS = [("triangle", False), ("4-cycle", False), ("diamond", False), ("house", False), ("4-cycle", True)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batches", type=int, default=8)
    ap.add_argument("--backend", default="cuda", help="the service's engine (cpu: dry run without a GPU)")
    args = ap.parse_args()
    port = free_port()
    data = tempfile.mkdtemp(prefix="dm-e2e-")
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", CUPY_GPU_MEMORY_LIMIT="40%")
    share = str(1.0 / args.workers) if args.backend == "cuda" else "0"
    cmd = [
        sys.executable,
        "-c",
        SERVE,
        "--workers",
        str(args.workers),
        "--backend",
        args.backend,
        "--num-gpus-per-worker",
        share,
        "--port",
        str(port),
        "--data-dir",
        data,
        "--log-level",
        "warning",
    ]
    print("starting:", " ".join(cmd), flush=True)
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT)
    url = f"http://127.0.0.1:{port}"
    ok = True
    try:
        with httpx.Client(base_url=url, timeout=120) as c:
            t0 = time.time()
            while True:
                try:
                    if c.get("/readyz").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.time() - t0 > 180 or proc.poll() is not None:
                    print("service did not become ready", flush=True)
                    return 1
                time.sleep(1)
            print(f"ready after {time.time() - t0:.1f} s", flush=True)
            rng = np.random.default_rng(7)
            n = 3000
            edges = rng.integers(0, n, size=(24000, 2))
            hub = np.stack([np.zeros(800, np.int64), rng.integers(1, n, size=800)], 1)
            edges = np.concatenate([edges, hub])
            edges = edges[edges[:, 0] != edges[:, 1]]
            local = GraphReplica("cpu")
            r = c.post("/v1/graph/load", json={"edges": edges.tolist()})
            r.raise_for_status()
            local.apply_only(1, local.normalize(edges, None))
            ids = []
            for pid_local, (name, induced) in enumerate(PATTERNS):
                r = c.post("/v1/patterns", json={"name": name, "induced": induced})
                r.raise_for_status()
                body = r.json()
                pat = parse_pattern(name, induced=induced)
                local.register(
                    pid_local,
                    PatternPlans(
                        compile_plans(pat, shared_plans(pat)), compile_plans(pat, [static_plan(pat)])
                    ),
                )
                want = local.static_count(pid_local, 0, 1)
                print(
                    f"pattern {name}{' (induced)' if induced else ''}: total {body['total']} (cpu {want})",
                    flush=True,
                )
                ok &= body["total"] == want
                ids.append(body["id"])
            cluster = c.get("/v1/cluster").json()
            backends = [w.get("backend") for w in cluster.get("workers", [])]
            print(
                "workers:",
                [(w.get("backend"), w.get("gpu_name"), w.get("device")) for w in cluster.get("workers", [])],
                flush=True,
            )
            ok &= len(backends) == args.workers and all(b == args.backend for b in backends)
            for version in range(2, 2 + args.batches):
                present = local.graph.edges()
                dele = present[rng.choice(present.shape[0], size=300, replace=False)]
                ins = rng.integers(0, n + 50, size=(400, 2))
                ins = ins[ins[:, 0] != ins[:, 1]]
                t = time.perf_counter()
                r = c.post("/v1/updates", json={"insert": ins.tolist(), "delete": dele.tolist()})
                r.raise_for_status()
                answer = r.json()
                elapsed = time.perf_counter() - t
                batch = local.normalize(ins, dele)
                tasks = {}
                for pid_local in range(len(PATTERNS)):
                    plans = local.patterns[pid_local].batch
                    d = batch.deleted.shape[0]
                    tasks[pid_local] = (
                        batch_tasks(plans, batch.changed, d, OLD),
                        batch_tasks(plans, batch.changed, d, NEW),
                    )
                res = local.execute(BatchPlan(version, batch, tasks, 0))
                line = []
                for pid_local, pid in enumerate(ids):
                    got = answer["deltas"][str(pid)]
                    want = {
                        "added": res.added[pid_local].count,
                        "removed": res.removed[pid_local].count,
                        "total": local.static_count(pid_local, 0, 1),
                    }
                    same = got == want
                    ok &= same
                    line.append(
                        f"{PATTERNS[pid_local][0]}{'*' if PATTERNS[pid_local][1] else ''} "
                        f"+{got['added']}/-{got['removed']}={got['total']}{'' if same else ' MISMATCH'}"
                    )
                print(f"v{answer['version']} ({elapsed * 1e3:.0f} ms): " + "; ".join(line), flush=True)
            m = c.get(f"/v1/patterns/{ids[0]}/matches", params={"limit": 50}).json()
            print(
                f"listed {len(m['matches'])} of {m['total']} triangles at version {m['version']}", flush=True
            )
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    print("service e2e:", "PASS" if ok else "FAIL", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
