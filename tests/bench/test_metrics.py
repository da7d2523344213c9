"""Agreement with the recount, summaries and speedups from batch records."""

from __future__ import annotations

import numpy as np

from deltamatch.bench.engines import BatchRecord, EngineRun
from deltamatch.bench.metrics import agreement, speedups, summarize
from deltamatch.bench.workload import make_workload


def _run(engine: str, totals: list[int], latency: float, added: bool = True, initial: int = 10) -> EngineRun:
    run = EngineRun(engine, "cpu", 1, 1, initial_total=initial)
    prev = initial
    for t in totals:
        a, r = (max(t - prev, 0), max(prev - t, 0)) if added else (-1, -1)
        run.batches.append(BatchRecord(latency, latency / 10, a, r, t, [latency]))
        prev = t
    return run


def test_matching_totals_agree():
    runs = [_run("recount", [12, 15], 1.0, added=False), _run("cpu-1", [12, 15], 0.1)]
    assert agreement(runs[1], runs) == ("yes", "")


def test_a_different_total_is_a_mismatch_naming_the_batch():
    runs = [_run("recount", [12, 15], 1.0, added=False), _run("cpu-1", [12, 16], 0.1)]
    verdict, why = agreement(runs[1], runs)
    assert verdict == "no" and "batch 1" in why


def test_a_different_static_count_is_a_mismatch():
    runs = [_run("recount", [12], 1.0, added=False), _run("cpu-all", [12], 0.1, initial=11)]
    assert agreement(runs[1], runs)[0] == "no"


def test_a_capped_run_is_checked_on_the_batches_it_finished():
    runs = [_run("recount", [12, 15, 20], 1.0, added=False), _run("networkx", [12], 5.0, added=False)]
    runs[1].status = "capped"
    assert agreement(runs[1], runs) == ("yes", "")


def test_speedup_is_the_latency_ratio_over_common_batches():
    runs = [_run("cpu-1", [12, 15, 20], 1.0), _run("networkx", [12], 4.0, added=False)]
    assert speedups(runs[0], runs)["speedup_vs_networkx"] == 4.0
    assert speedups(runs[1], runs)["speedup_vs_cpu_1"] == 0.25


def test_summary_rates_and_percentiles():
    edges = np.array([(i, i + 1) for i in range(40)], dtype=np.int64)
    workload = make_workload(edges, load_fraction=0.5, batch_size=10)
    run = _run("cpu-1", [12, 15], 0.5)
    s = summarize(run, workload, [2, 3])
    assert s["updates"] == 20 and s["updates_per_s"] == 20.0
    assert s["matches"] == 5 and s["matches_per_s"] == 5.0
    assert s["latency_p50_ms"] == 500.0 and s["imbalance"] == 1.0
