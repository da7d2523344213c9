"""The allocation benchmark: how evenly each policy loads the workers, and how good the predictions are.

For every graph and pattern (and `mix`: all patterns registered together) each policy
runs the identical workload on `workers` fresh replicas: the first `load_fraction` of
the edges loaded, then `batches` batches of `batch_size` updates.  In-process, the
replicas run one after another on one numba thread each (`threads`, default 1), and every time is
the CPU time of the running thread (`time.thread_time`), so other load on the machine
does not count: a worker's busy time is what its share costs on one core, and the batch
latency reported is the one the workers would have in parallel: the serial part
(normalize, prediction, assignment, merge) plus the busiest worker.  With `ray=True` the
same runs also go through real worker actors (`workers/actor.py`); those times are wall
clock and share the machine's cores.

Prediction accuracy is measured on a separate probe replica that follows the same
batches: each side's tasks are cut into random groups, each group is timed with
`backend.count` (best of two, CPU time), and Spearman's rank correlation is taken between the
groups' predicted and measured cost, for G2Miner's estimate, PGMiner's model, that model
with neighbour-degree scans, and the calibrated model (the calibrator as the `calibrated`
run left it before that batch).

`run_allocation_bench(context)` is what the `deltamatch bench --extra allocation` suite
calls; `python -m deltamatch.bench.allocation` runs it standalone and writes the CSV and
the plot under `bench/results/`.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from deltamatch.bench.graphs import REPO_ROOT, BenchGraph, load_graph
from deltamatch.bench.meta import run_metadata
from deltamatch.bench.workload import Workload, make_workload
from deltamatch.scheduler.allocation import POLICIES
from deltamatch.scheduler.core import BatchOutcome, SchedulerCore, WorkerPool
from deltamatch.scheduler.cost import Calibrator, g2miner_cost, plan_shape, predict_task_cost
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.scheduler.plans import compile_plans, shared_plans
from deltamatch.scheduler.tasks import NEW, OLD, batch_tasks
from deltamatch.workers.replica import GraphReplica

RESULTS_DIR = REPO_ROOT / "bench" / "results"
MIX = "mix"
ESTIMATORS = ("g2miner", "pgminer", "neighbour-scan", "calibrated")


@dataclass
class AllocationConfig:
    """One benchmark run; the CLI options carry the same names."""

    graphs: list[str] = field(default_factory=lambda: ["rmat:13", "email-Enron"])
    patterns: list[str] = field(default_factory=lambda: ["triangle", "4-clique", "diamond", "4-cycle"])
    policies: list[str] = field(default_factory=lambda: list(POLICIES))
    workers: int = 4
    batch_size: int = 500
    batches: int = 6
    warmup: int = 1
    load_fraction: float = 0.9
    delete_fraction: float = 0.1
    shuffle: int = 1
    threads: int = 1
    mix: bool = True
    ray: bool = False
    data_dir: str | None = None
    out_dir: str = str(RESULTS_DIR)
    tag: str = "allocation"


def run_allocation_bench(context=None, config: AllocationConfig | None = None) -> list[dict]:
    """Run the benchmark; rows per (graph, pattern, policy[, ray]).  From the suite (`context`:
    an `ExtraContext`) its graphs, patterns, first batch size and max batches are used and
    the suite writes the rows; standalone (`config`) the CSV and plot are written here."""
    if context is not None:
        c = context.config
        config = AllocationConfig(graphs=list(c.graphs), patterns=list(c.patterns),
                                  workers=max(4, c.workers), batch_size=c.batch_sizes[0],
                                  batches=c.max_batches or 6, data_dir=c.data_dir,
                                  out_dir=str(context.out_dir), tag=context.run_id)
    config = config or AllocationConfig()
    meta = run_metadata(with_gpu=False)  # before the run: the commit is the code that ran
    import numba

    threads = numba.get_num_threads()
    numba.set_num_threads(config.threads)
    try:
        rows = []
        for spec in config.graphs:
            graph = load_graph(spec, config.data_dir)
            workload = make_workload(graph.edges, load_fraction=config.load_fraction,
                                     batch_size=config.batch_size, delete_fraction=config.delete_fraction,
                                     shuffle=config.shuffle, max_batches=config.batches + config.warmup)
            cases = [[p] for p in config.patterns] + ([config.patterns] if config.mix else [])
            for names in cases:
                rows += _case(config, graph, workload, names)
    finally:
        numba.set_num_threads(threads)
        if config.ray:
            import ray

            ray.shutdown()
    if context is None:
        _write(config, rows, meta)
    else:
        plot(rows, Path(config.out_dir) / f"{config.tag}-allocation.png")
    return rows


def _case(config: AllocationConfig, graph: BenchGraph, workload: Workload, names: list[str]) -> list[dict]:
    label = names[0] if len(names) == 1 else MIX
    rows = []
    accuracy = None
    probed = "calibrated" if "calibrated" in config.policies else config.policies[-1]
    for policy in config.policies:
        probe = _Probe(names, workload) if policy == probed else None
        outcomes, core = _run(config, workload, names, policy, probe)
        if probe is not None:
            accuracy = probe.spearman(config.warmup)
        rows.append(_summary(config, graph, label, policy, "in-process", outcomes[config.warmup:]))
        print(_line(rows[-1]), file=sys.stderr, flush=True)
    if config.ray:
        for policy in config.policies:
            outcomes = _run_ray(config, workload, names, policy)
            rows.append(_summary(config, graph, label, policy, "ray", outcomes[config.warmup:]))
            print(_line(rows[-1]), file=sys.stderr, flush=True)
    for row in rows:
        est = row["policy"]
        row["spearman"] = accuracy[est] if accuracy and est in accuracy else ""
        row["spearman_neighbour_scan"] = accuracy.get("neighbour-scan", "") if accuracy else ""
        row["spearman_groups"] = accuracy["groups"] if accuracy else ""
    return rows


class _CpuTimeReplica(GraphReplica):
    """Busy time as this thread's CPU time: immune to other tenants of the machine."""

    clock = staticmethod(time.thread_time)


class _CpuTimeCore(SchedulerCore):
    clock = staticmethod(time.thread_time)


def _pool(workers: int) -> WorkerPool:
    return WorkerPool([_CpuTimeReplica("cpu") for _ in range(workers)])


def _start(core: SchedulerCore, names: list[str], initial: np.ndarray) -> None:
    """Register on the empty graph, then bulk-load without static counts (totals are not measured)."""
    for name in names:
        core.register(parse_pattern(name))
    batch = core.intake.normalize(initial, None)
    core.pool.apply_only(1, batch)
    core.intake.commit(1, batch)
    core.version = 1


def _run(config: AllocationConfig, workload: Workload, names: list[str], policy: str,
         probe: _Probe | None) -> tuple[list[BatchOutcome], SchedulerCore]:
    core = _CpuTimeCore(_pool(config.workers), list_limit=0, policy=policy)
    _start(core, names, workload.initial)
    outcomes = []
    for b in workload.batches:
        if probe is not None:
            probe.measure(b.insert, b.delete, core.calibrator)
        outcomes.append(core.apply(b.insert, b.delete))
    return outcomes, core


def _run_ray(config: AllocationConfig, workload: Workload, names: list[str],
             policy: str) -> list[BatchOutcome]:
    import ray

    from deltamatch.scheduler.actor import RayWorkerPool
    from deltamatch.workers.actor import make_worker_actors

    if not ray.is_initialized():
        ray.init(num_cpus=config.workers, include_dashboard=False, log_to_driver=False,
                 runtime_env={"env_vars": {"NUMBA_NUM_THREADS": str(config.threads)}})
    handles = make_worker_actors(config.workers, backend="cpu")
    try:
        empty = (np.zeros(0, np.int64), np.zeros((0, 2), np.int64), 0, [])
        pool = RayWorkerPool(handles, lambda: empty)
        pool.rebuild_all()
        core = SchedulerCore(pool, list_limit=0, policy=policy)
        _start(core, names, workload.initial)
        return [core.apply(b.insert, b.delete) for b in workload.batches]
    finally:
        for h in handles:
            ray.kill(h)


class _Probe:
    """A replica that follows the batches and times random task groups (module docstring)."""

    def __init__(self, names: list[str], workload: Workload, groups_per_side: int = 48) -> None:
        self.replica = _CpuTimeReplica("cpu")
        self.plans = []
        for name in names:
            p = parse_pattern(name)
            table = compile_plans(p, shared_plans(p))
            self.plans.append((table, plan_shape(table)))
        self.replica.apply_only(1, self.replica.normalize(workload.initial, None))
        self.groups = groups_per_side
        self.rng = np.random.default_rng(0)
        self.records: list[tuple[int, dict[str, np.ndarray], np.ndarray]] = []
        self.batch = 0

    def measure(self, insert, delete, calibrator: Calibrator) -> None:
        r = self.replica
        batch = r.normalize(insert, delete)
        feats = r.backend.pair_features(batch, r.graph.num_vertices)
        backend = r.backend
        view = backend.batch_view(batch.changed)
        try:
            for side in (OLD, NEW):
                if side == NEW:
                    backend.apply(batch)
                for pid, (table, shape) in enumerate(self.plans, start=1):
                    self._side(pid, table, shape, side, batch, feats, view, calibrator)
        finally:
            backend.release(view)
        r.version += 1
        self.batch += 1

    def _side(self, pid, table, shape, side, batch, feats, view, calibrator) -> None:
        tasks = batch_tasks(table, batch.changed, batch.deleted.shape[0], side)
        if tasks.size == 0:
            return
        f = feats.side(side)
        refined = predict_task_cost(tasks, shape, feats.pairs, f, neighbour_scan=True)
        costs = {"g2miner": g2miner_cost(tasks, feats.pairs, f),
                 "pgminer": predict_task_cost(tasks, shape, feats.pairs, f), "neighbour-scan": refined}
        if calibrator.fitted(pid):
            costs["calibrated"] = calibrator.seconds(pid, tasks, refined)
        perm = self.rng.permutation(tasks.size)
        backend = self.replica.backend
        for chunk in np.array_split(perm, min(self.groups, tasks.size)):
            part = tasks.take(chunk)
            best = np.inf
            for _ in range(2):
                t0 = time.thread_time()
                backend.count(table, part, view, table.induced)
                best = min(best, time.thread_time() - t0)
            self.records.append((self.batch, {k: float(v[chunk].sum()) for k, v in costs.items()}, best))

    def spearman(self, warmup: int) -> dict:
        """Rank correlation of predicted and measured group cost per estimator (after `warmup`)."""
        kept = [r for r in self.records if r[0] >= warmup]
        out: dict = {"groups": len(kept)}
        for est in ESTIMATORS:
            pairs = [(r[1][est], r[2]) for r in kept if est in r[1]]
            if len(pairs) >= 3:
                pred, meas = np.array(pairs).T
                out[est] = float(spearmanr(pred, meas).statistic)
        return out


def _summary(config: AllocationConfig, graph: BenchGraph, label: str, policy: str, mode: str,
             outcomes: list[BatchOutcome]) -> dict:
    busy = np.array([o.busy_seconds for o in outcomes])
    match = np.array([[sum(g.seconds for g in o.groups if g.worker == w) for w in range(config.workers)]
                      for o in outcomes])
    serial = np.array([o.elapsed_ms / 1e3 - sum(o.busy_seconds) for o in outcomes])
    latency = serial + busy.max(axis=1) if mode == "in-process" else np.array([o.elapsed_ms / 1e3
                                                                               for o in outcomes])
    pred = np.array([o.prediction_seconds for o in outcomes])
    sort = np.array([o.sort_seconds for o in outcomes])
    stats = graph.stats
    ratio_busy = busy.max(axis=1) / busy.min(axis=1)
    ratio_match = match.max(axis=1) / np.maximum(match.min(axis=1), 1e-9)
    return {
        "graph": graph.name, "V": stats["V"], "E": stats["E"], "max_degree": stats["max_degree"],
        "pattern": label, "policy": policy, "mode": mode, "workers": config.workers,
        "threads_per_worker": config.threads, "batch_size": config.batch_size, "batches": len(outcomes),
        "delete_fraction": config.delete_fraction,
        "imbalance_busy_mean": float(ratio_busy.mean()), "imbalance_busy_max": float(ratio_busy.max()),
        "imbalance_match_mean": float(ratio_match.mean()), "imbalance_match_max": float(ratio_match.max()),
        "imbalance_match_p50": float(np.median(ratio_match)),
        "latency_ms_mean": float(latency.mean() * 1e3), "latency_ms_p50": float(np.median(latency) * 1e3),
        "makespan_ms_mean": float(busy.max(axis=1).mean() * 1e3),
        "prediction_share": float((pred / latency).mean()), "sort_share": float((sort / latency).mean()),
        "prediction_ms_mean": float(pred.mean() * 1e3), "sort_ms_mean": float(sort.mean() * 1e3),
    }


def _line(row: dict) -> str:
    return (f"{row['graph']:>14} {row['pattern']:>9} {row['policy']:>11} {row['mode']:>10}  "
            f"imb busy {row['imbalance_busy_mean']:.2f} match {row['imbalance_match_mean']:.2f}  "
            f"latency {row['latency_ms_mean']:.0f} ms  pred {100 * row['prediction_share']:.2f}%  "
            f"sort {100 * row['sort_share']:.2f}%")


def _write(config: AllocationConfig, rows: list[dict], meta: dict) -> Path:
    stamp = meta["date"].replace("-", "").replace(":", "")
    out = Path(config.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{config.tag}-{stamp}.csv"
    columns = list(dict.fromkeys(k for r in rows for k in r)) + list(meta)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        for r in rows:
            w.writerow({**r, **meta})
    plot(rows, path.with_suffix(".png"), f"{meta['commit']} | {meta['device']} | {meta['date']}")
    print(path, file=sys.stderr)
    return path


def plot(rows: list[dict], out: Path, caption: str = "") -> Path:
    """Median imbalance (matching time, max/min) and batch latency per policy, one group per case;
    `rows` as returned or as read back from the CSV."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in rows if r["mode"] == "in-process"]
    cases = list(dict.fromkeys((r["graph"], r["pattern"]) for r in rows))
    policies = list(dict.fromkeys(r["policy"] for r in rows))
    fig, axes = plt.subplots(2, 1, figsize=(max(6, 1.6 * len(cases)), 6.5), sharex=True)
    width = 0.8 / max(len(policies), 1)
    x = np.arange(len(cases))
    for i, policy in enumerate(policies):
        by_case = {(r["graph"], r["pattern"]): r for r in rows if r["policy"] == policy}
        imb = [float(by_case[c]["imbalance_match_p50"]) if c in by_case else np.nan for c in cases]
        lat = [float(by_case[c]["latency_ms_p50"]) if c in by_case else np.nan for c in cases]
        axes[0].bar(x + i * width, imb, width, label=policy)
        axes[1].bar(x + i * width, lat, width, label=policy)
    axes[0].axhline(1.0, color="k", lw=0.6)
    axes[0].set_ylabel("busiest / least busy worker\n(matching time, median)")
    axes[0].set_yscale("log")
    axes[1].set_ylabel("batch latency, ms, median\n(workers in parallel)")
    axes[1].set_yscale("log")
    axes[1].set_xticks(x + 0.4 - width / 2, [f"{g}\n{p}" for g, p in cases], fontsize=8)
    axes[0].legend(fontsize=8, ncol=len(policies))
    for ax in axes:
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle(f"Allocation policies ({caption})" if caption else "Allocation policies", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv: list[str] | None = None) -> int:
    d = AllocationConfig()
    ap = argparse.ArgumentParser(prog="python -m deltamatch.bench.allocation",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--graphs", nargs="+", default=d.graphs)
    ap.add_argument("--patterns", nargs="+", default=d.patterns)
    ap.add_argument("--policies", nargs="+", default=d.policies, choices=POLICIES)
    ap.add_argument("--workers", type=int, default=d.workers)
    ap.add_argument("--batch-size", type=int, default=d.batch_size)
    ap.add_argument("--batches", type=int, default=d.batches, help="measured batches (after --warmup)")
    ap.add_argument("--warmup", type=int, default=d.warmup)
    ap.add_argument("--delete-fraction", type=float, default=d.delete_fraction)
    ap.add_argument("--threads", type=int, default=d.threads, help="numba threads per worker")
    ap.add_argument("--no-mix", action="store_true", help="skip the all-patterns-together case")
    ap.add_argument("--ray", action="store_true", help="also run each policy on real Ray worker actors")
    ap.add_argument("--data-dir", default=d.data_dir)
    ap.add_argument("--out-dir", default=d.out_dir)
    ap.add_argument("--tag", default=d.tag)
    a = ap.parse_args(argv)
    config = AllocationConfig(graphs=a.graphs, patterns=a.patterns, policies=a.policies, workers=a.workers,
                              batch_size=a.batch_size, batches=a.batches, warmup=a.warmup,
                              delete_fraction=a.delete_fraction, threads=a.threads, mix=not a.no_mix,
                              ray=a.ray, data_dir=a.data_dir, out_dir=a.out_dir, tag=a.tag)
    run_allocation_bench(config=config)
    return 0


if __name__ == "__main__":
    sys.exit(main())
