"""Per-engine figures from batch records, the engines' agreement, and speedup ratios."""

from __future__ import annotations

import numpy as np

from deltamatch.bench.engine_names import INCREMENTAL
from deltamatch.bench.engines import EngineRun
from deltamatch.bench.workload import Workload

BASELINES = ("cpu-1", "cpu-all", "recount", "networkx", "gpu")


def column(engine: str) -> str:
    """The CSV column of the speedup against `engine`."""
    return "speedup_vs_" + engine.replace("-", "_")


def _ran(run: EngineRun) -> bool:
    return run.status in ("ok", "capped")


def reference(runs: list[EngineRun]) -> EngineRun | None:
    """The run whose totals every other is checked against: the recount, else the first incremental."""
    for run in runs:
        if run.engine == "recount" and _ran(run):
            return run
    return next((r for r in runs if r.engine in INCREMENTAL and _ran(r)), None)


def agreement(run: EngineRun, runs: list[EngineRun]) -> tuple[str, str]:
    """('yes' | 'no' | '', what differs): totals against the reference, deltas against other incrementals."""
    ref = reference(runs)
    if not _ran(run) or ref is None:
        return "", ""
    if run.initial_total < 0:
        return "", "stopped before its static count finished"
    if run.initial_total != ref.initial_total:
        return "no", f"static total {run.initial_total} != {ref.engine} {ref.initial_total}"
    for i, (mine, theirs) in enumerate(zip(run.batches, ref.batches, strict=False)):
        if mine.total != theirs.total:
            return "no", f"batch {i}: total {mine.total} != {ref.engine} {theirs.total}"
    if run.added_known:
        for other in runs:
            if other is run or not other.added_known or not _ran(other):
                continue
            for i, (a, b) in enumerate(zip(run.batches, other.batches, strict=False)):
                if (a.added, a.removed) != (b.added, b.removed):
                    return "no", (f"batch {i}: +{a.added}/-{a.removed} != "
                                  f"{other.engine} +{b.added}/-{b.removed}")
    return "yes", ""


def delta_matches(runs: list[EngineRun]) -> list[int]:
    """Per batch, |added| + |removed| as the incremental engine that ran most batches found it."""
    known = [r for r in runs if r.added_known and _ran(r)]
    if not known:
        return []
    best = max(known, key=lambda r: len(r.batches))
    return [b.added + b.removed for b in best.batches]


def summarize(run: EngineRun, workload: Workload, matches: list[int]) -> dict:
    """Latency percentiles, rates, graph-update time, busy time per worker and imbalance."""
    n = len(run.batches)
    out = {"batches_run": n, "load_s": run.load_s, "initial_total": run.initial_total,
           "final_total": run.batches[-1].total if n else run.initial_total}
    if n == 0:
        return out
    lat = np.array([b.latency_s for b in run.batches])
    upd = np.array([b.update_s for b in run.batches])
    total_s = float(lat.sum())
    updates = sum(b.size for b in workload.batches[:n])
    found = sum(matches[:n]) if len(matches) >= n else None
    busy = np.zeros(max((len(b.busy_s) for b in run.batches), default=0))
    for b in run.batches:
        busy[: len(b.busy_s)] += b.busy_s
    out.update({
        "latency_p50_ms": float(np.percentile(lat, 50) * 1e3),
        "latency_p99_ms": float(np.percentile(lat, 99) * 1e3),
        "latency_mean_ms": float(lat.mean() * 1e3),
        "total_s": total_s,
        "updates": updates,
        "updates_per_s": updates / total_s if total_s > 0 else float("nan"),
        "matches": found if found is not None else "",
        "matches_per_s": found / total_s if found is not None and total_s > 0 else "",
        "graph_update_mean_ms": float(np.nanmean(upd) * 1e3) if np.isfinite(upd).any() else "",
        "graph_update_share": float(np.nansum(upd) / total_s) if np.isfinite(upd).any() and total_s else "",
        "busy_s": ";".join(f"{x:.4f}" for x in busy),
        "imbalance": float(busy.max() / busy.min()) if busy.size and busy.min() > 0 else "",
    })
    return out


def speedups(run: EngineRun, runs: list[EngineRun]) -> dict:
    """Mean latency of each baseline over the mean latency of `run`, on the batches both finished."""
    out = {}
    for base in BASELINES:
        other = next((r for r in runs if r.engine == base), None)
        out[column(base)] = ""
        if other is None or other is run or not _ran(run) or not _ran(other):
            continue
        n = min(len(run.batches), len(other.batches))
        if n == 0:
            continue
        mine = sum(b.latency_s for b in run.batches[:n])
        theirs = sum(b.latency_s for b in other.batches[:n])
        if mine > 0:
            out[column(base)] = theirs / mine
    return out
