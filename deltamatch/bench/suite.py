"""The suite: every graph x batch size x pattern, every engine on the identical workload.

`run_suite(BenchConfig(...))` is the whole benchmark as a function (the CLI and
`python -m deltamatch.bench` call it; nothing of the service is imported).  It writes
`<run>.csv` (one row per engine and case, with the run's metadata and parameters),
`<run>-batches.csv` (every batch of every engine) and the plots next to them.
"""

from __future__ import annotations

import csv
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from deltamatch.bench import engines as eng
from deltamatch.bench.engine_names import DEFAULT_ENGINES, ENGINES, engine_variant
from deltamatch.bench.graphs import REPO_ROOT, BenchGraph, check_graph_spec, load_graph
from deltamatch.bench.meta import run_metadata
from deltamatch.bench.metrics import BASELINES, agreement, column, delta_matches, speedups, summarize
from deltamatch.bench.registry import EXTRAS, run_extra
from deltamatch.bench.workload import Workload, make_workload
from deltamatch.kernels.cpu_engine import EngineOptions
from deltamatch.scheduler.patterns import Pattern, parse_pattern

RESULTS_DIR = REPO_ROOT / "bench" / "results"

PARAM_COLUMNS = [
    "run_id", "mode", "graph", "graph_kind", "scale", "edge_factor", "rmat_seed", "V", "E", "max_degree",
    "E_loaded", "load_fraction", "shuffle", "batch_size", "delete_fraction", "stream_batches",
    "max_batches", "workers", "policy", "list_limit", "time_limit_s", "pattern", "induced",
]
RESULT_COLUMNS = [
    "engine", "backend", "threads", "replicas", "status", "note", "agree", "disagreement", "batches_run",
    "load_s", "initial_total", "final_total", "latency_p50_ms", "latency_p99_ms", "latency_mean_ms",
    "total_s", "updates", "updates_per_s", "matches", "matches_per_s", "graph_update_mean_ms",
    "graph_update_share", "busy_s", "imbalance", *[column(b) for b in BASELINES],
]
META_COLUMNS = ["commit", "device", "gpu", "cores", "loadavg", "date", "python", "numpy", "numba", "argv"]
COLUMNS = PARAM_COLUMNS + RESULT_COLUMNS + META_COLUMNS
BATCH_COLUMNS = ["run_id", "graph", "pattern", "induced", "batch_size", "engine", "batch", "inserted",
                 "deleted", "latency_ms", "graph_update_ms", "added", "removed", "total", "busy_s",
                 "recounted"]


@dataclass
class BenchConfig:
    """Everything a run depends on; each field is a CLI option of the same name."""

    graphs: list[str] = field(default_factory=lambda: ["rmat:12", "ca-GrQc"])
    patterns: list[str] = field(default_factory=lambda: ["triangle"])
    induced: bool = False
    batch_sizes: list[int] = field(default_factory=lambda: [1000])
    load_fraction: float = 0.9
    shuffle: int | None = None
    delete_fraction: float = 0.0
    seed: int = 0
    max_batches: int | None = None
    engines: list[str] = field(default_factory=lambda: list(DEFAULT_ENGINES))
    workers: int = 1
    policy: str = "even"
    list_limit: int = 0
    time_limit: float | None = None
    nx_max_edges: int = 200_000
    nx_time_limit: float = 60.0
    rest_url: str | None = None
    data_dir: str | None = None
    out_dir: str = str(RESULTS_DIR)
    tag: str = "bench"
    mode: str = "suite"
    plots: bool = True
    progress: bool = True
    extras: list[str] = field(default_factory=list)


@dataclass
class SuiteResult:
    """Rows written, where, and whether every engine agreed with the recount."""

    run_id: str
    rows: list[dict]
    csv_path: Path
    batches_path: Path
    plots: list[Path]
    failed: bool


def _engine_runner(name: str, config: BenchConfig, gpu_ok: bool, gpu_why: str) -> Callable | str:
    """A callable (workload, pattern, on_batch) -> EngineRun, or the reason the engine is skipped."""
    limit = config.time_limit
    if name.startswith("gpu") and not gpu_ok:
        return gpu_why
    if name == "recount":
        backend = "cuda" if gpu_ok and "gpu" in config.engines else "cpu"
        return lambda w, p, cb: eng.run_recount(w, p, backend=backend, threads=eng.ALL_THREADS,
                                                time_limit=limit, on_batch=cb)
    if name == "networkx":
        from deltamatch.bench.nx_engine import run_networkx

        return lambda w, p, cb: run_networkx(w, p, max_edges=config.nx_max_edges,
                                             time_limit=config.nx_time_limit, on_batch=cb)
    if name == "rest":
        if not config.rest_url:
            return "no --rest URL given"
        from deltamatch.bench.rest_engine import run_rest

        return lambda w, p, cb: run_rest(w, p, url=config.rest_url, time_limit=limit, on_batch=cb)
    variant = engine_variant(name)
    threads = eng.ALL_THREADS if variant.all_threads else 1
    return lambda w, p, cb: eng.run_incremental(
        w, p, engine=name, backend=variant.backend, threads=threads, workers=config.workers,
        shared=variant.shared, hoist=variant.hoist, policy=config.policy, list_limit=config.list_limit,
        cpu_options=EngineOptions(*variant[4:]), time_limit=limit,
        on_batch=cb)


def _params(config: BenchConfig, run_id: str, graph: BenchGraph, stats: dict, workload: Workload,
            batch_size: int, pattern: Pattern) -> dict:
    return {
        "run_id": run_id, "mode": config.mode, "graph": graph.name, "graph_kind": graph.kind,
        "scale": graph.scale if graph.scale is not None else "", "edge_factor": graph.edge_factor or "",
        "rmat_seed": graph.seed if graph.seed is not None else "", **stats,
        "E_loaded": int(workload.initial.shape[0]), "load_fraction": config.load_fraction,
        "shuffle": "" if config.shuffle is None else config.shuffle, "batch_size": batch_size,
        "delete_fraction": config.delete_fraction, "stream_batches": workload.stream_batches,
        "max_batches": config.max_batches or "", "workers": config.workers, "policy": config.policy,
        "list_limit": config.list_limit, "time_limit_s": config.time_limit or "",
        "pattern": pattern.name or ",".join(f"{u}-{v}" for u, v in pattern.edges), "induced": pattern.induced,
    }


def _run_engine(runner: Callable | str, name: str, workload: Workload, pattern: Pattern,
                on_batch) -> eng.EngineRun:
    if isinstance(runner, str):
        return eng.EngineRun(name, "", 0, 0, status="skipped", note=runner)
    try:
        return runner(workload, pattern, on_batch)
    except Exception as exc:  # one engine's crash is recorded as its failure; the others still run
        return eng.EngineRun(name, "", 0, 0, status="failed", note=f"{type(exc).__name__}: {exc}")


def run_suite(config: BenchConfig) -> SuiteResult:
    """Run every case of `config`, write the CSVs and plots, print the tables; see module docstring."""
    patterns = [parse_pattern(p, induced=config.induced) for p in config.patterns]
    unknown = [e for e in config.engines if e not in ENGINES]
    if unknown:
        raise ValueError(f"engines: unknown {unknown[0]!r}; choose from {', '.join(ENGINES)}")
    missing = [x for x in config.extras if x not in EXTRAS]
    if missing:
        raise ValueError(f"extra {missing[0]!r}: unknown; choose from {', '.join(sorted(EXTRAS))}")
    for spec in config.graphs:
        check_graph_spec(spec, config.data_dir)
    gpu_ok, gpu_why = eng.gpu_status() if any(e.startswith("gpu") for e in config.engines) else (False, "")
    meta = run_metadata(with_gpu=gpu_ok)
    run_id = f"{config.tag}-{meta['date'].replace(':', '').replace('-', '')}"
    out_dir = Path(config.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    runners = {name: _engine_runner(name, config, gpu_ok, gpu_why) for name in config.engines}
    csv_path = out_dir / f"{run_id}.csv"
    batches_path = out_dir / f"{run_id}-batches.csv"
    rows: list[dict] = []
    batch_rows: list[dict] = []
    bar = tqdm(total=0, desc="bench", unit="batch", file=sys.stderr, disable=not config.progress)
    failed = False
    for spec in config.graphs:
        bar.set_description(f"load {spec}")
        graph = load_graph(spec, config.data_dir)
        stats = graph.stats
        for batch_size in config.batch_sizes:
            workload = make_workload(graph.edges, load_fraction=config.load_fraction, batch_size=batch_size,
                                     delete_fraction=config.delete_fraction, shuffle=config.shuffle,
                                     max_batches=config.max_batches, seed=config.seed)
            for pattern in patterns:
                bar.total += len(workload.batches) * len(config.engines)
                bar.refresh()
                bar.set_description(f"warm-up {pattern.name}")
                eng.warm_up(pattern, ["cpu", "cuda"] if gpu_ok else ["cpu"], config.workers)
                runs = []
                for name in config.engines:
                    bar.set_description(f"{graph.name} b={batch_size} {pattern.name} {name}")
                    started = bar.n
                    run = _run_engine(runners[name], name, workload, pattern, lambda: bar.update(1))
                    bar.update(len(workload.batches) - (bar.n - started))
                    runs.append(run)
                params = _params(config, run_id, graph, stats, workload, batch_size, pattern)
                matches = delta_matches(runs)
                case_rows = []
                for run in runs:
                    agree, why = agreement(run, runs)
                    failed |= agree == "no" or run.status == "failed"
                    row = {**params, "engine": run.engine, "backend": run.backend, "threads": run.threads,
                           "replicas": run.workers, "status": run.status, "note": run.note, "agree": agree,
                           "disagreement": why,
                           **summarize(run, workload, matches), **speedups(run, runs), **meta,
                           "loadavg": round(os.getloadavg()[0], 2)}
                    case_rows.append(row)
                    batch_rows.extend(_batch_rows(run_id, params, run, workload))
                rows.extend(case_rows)
                # Rewritten after every case, so a run stopped midway keeps what it finished.
                write_csv(csv_path, rows, COLUMNS)
                write_csv(batches_path, batch_rows, BATCH_COLUMNS)
                bar.clear()
                print(format_case(case_rows), flush=True)
                bar.refresh()
    bar.close()
    plots = []
    if config.plots:
        from deltamatch.bench import plots as plot

        plots.append(plot.latency_plot(batches_path, out_dir / f"{run_id}-latency.png"))
        if config.mode == "sweep":
            plots.append(plot.sweep_plot(csv_path, out_dir / f"{run_id}-sweep.png"))
    if config.mode == "sweep":
        from deltamatch.bench.report import crossover_lines, read_rows

        print("\n".join(crossover_lines(read_rows(csv_path))))
    for extra in config.extras:
        try:
            path = run_extra(extra, config, run_id, meta, out_dir)
        except ModuleNotFoundError as exc:
            print(f"extra {extra}: skipped ({exc})")
            continue
        print(f"extra {extra}: " + (f"wrote {path}" if path else "no rows"))
    print(f"wrote {csv_path}\nwrote {batches_path}" + "".join(f"\nwrote {p}" for p in plots))
    if failed:
        print("FAILED: an engine disagreed with the recount or crashed (see 'agree', 'status')",
              file=sys.stderr)
    return SuiteResult(run_id, rows, csv_path, batches_path, plots, failed)


def _batch_rows(run_id: str, params: dict, run: eng.EngineRun, workload: Workload) -> list[dict]:
    out = []
    for i, (rec, batch) in enumerate(zip(run.batches, workload.batches, strict=False)):
        out.append({
            "run_id": run_id, "graph": params["graph"], "pattern": params["pattern"],
            "induced": params["induced"], "batch_size": params["batch_size"], "engine": run.engine,
            "batch": i, "inserted": batch.insert.shape[0], "deleted": batch.delete.shape[0],
            "latency_ms": rec.latency_s * 1e3, "graph_update_ms": rec.update_s * 1e3,
            "added": rec.added, "removed": rec.removed, "total": rec.total,
            "busy_s": ";".join(f"{x:.5f}" for x in rec.busy_s), "recounted": rec.recounted,
        })
    return out


def write_csv(path: Path, rows: list[dict], columns: list[str]) -> None:
    """Rows as CSV with exactly `columns` (missing values empty)."""
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _cell(row.get(k, "")) for k in columns})


def _cell(value):
    if isinstance(value, float):
        return f"{value:.6g}"
    return value


def _fmt(value, spec: str = ".3g") -> str:
    if value in ("", None):
        return "-"
    return format(value, spec) if isinstance(value, float | int) else str(value)


def format_case(rows: list[dict]) -> str:
    """One case as a text table, headed by its problem size (ratios mean nothing without it)."""
    r0 = rows[0]
    size = (f"V={r0['V']:,} E={r0['E']:,} max_degree={r0['max_degree']:,} batch={r0['batch_size']:,}"
            f" ({r0['delete_fraction']:g} deletions)")
    lines = [f"\n== {r0['graph']} | {r0['pattern']}{' (induced)' if r0['induced'] else ''} | {size}",
             f"{'engine':<16}{'status':<8}{'agree':<6}{'batches':>8}{'p50 ms':>10}{'p99 ms':>10}"
             f"{'updates/s':>12}{'matches/s':>12}{'upd ms':>9}{'imbal':>7}  speedup vs"]
    for r in rows:
        ratios = ", ".join(f"{b} {r[column(b)]:.3g}x" for b in BASELINES
                           if r.get(column(b)) not in ("", None))
        flags = (f"  [{r['note']}]" if r["note"] else "") + (
            f"  MISMATCH: {r['disagreement']}" if r["agree"] == "no" else "")
        lines.append(
            f"{r['engine']:<16}{r['status']:<8}{r['agree'] or '-':<6}{r.get('batches_run', 0):>8}"
            f"{_fmt(r.get('latency_p50_ms', '')):>10}{_fmt(r.get('latency_p99_ms', '')):>10}"
            f"{_fmt(r.get('updates_per_s', '')):>12}{_fmt(r.get('matches_per_s', '')):>12}"
            f"{_fmt(r.get('graph_update_mean_ms', '')):>9}{_fmt(r.get('imbalance', '')):>7}  {ratios or '-'}"
            + flags)
    lines.append(f"   (every ratio above at {size})")
    return "\n".join(lines)

