"""The quick suite end to end (a smaller --quick): CSV columns, engines agreeing, plots."""

from __future__ import annotations

import csv
import subprocess
import sys

import pytest

from deltamatch.bench.__main__ import main
from deltamatch.bench.graphs import real_graph_path
from deltamatch.bench.suite import BATCH_COLUMNS, COLUMNS


def _real_graph(tmp) -> tuple[str, str]:
    """citeseer from the shared data; in a clone without it, a real graph networkx ships, as a file."""
    if real_graph_path("citeseer") is not None:
        return "citeseer", "citeseer"
    import networkx as nx

    graph = nx.convert_node_labels_to_integers(nx.les_miserables_graph())
    path = tmp / "lesmis.txt"
    path.write_text("".join(f"{u} {v}\n" for u, v in graph.edges()))
    return str(path), "lesmis"


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("results")
    real, name = _real_graph(out)
    rc = main(["--quick", "--graphs", "rmat:8", real, "--patterns", "triangle", "4-cycle",
               "--batch", "60", "--max-batches", "4", "--nx-time-limit", "3", "--tag", "test",
               "--out", str(out), "--no-progress"])
    summary = next(p for p in out.glob("test-*.csv") if not p.stem.endswith("-batches"))
    with open(summary, newline="") as f:
        rows = list(csv.DictReader(f))
    return rc, out, summary, rows, name


def test_quick_run_succeeds(quick_run):
    rc, *_ = quick_run
    assert rc == 0


def test_summary_csv_has_every_column(quick_run):
    _, _, summary, rows, name = quick_run
    with open(summary, newline="") as f:
        assert next(csv.reader(f)) == COLUMNS
    assert {r["graph"] for r in rows} == {"rmat-8-16-1", name}
    assert all(r["commit"] and r["device"] and r["date"] and r["V"] and r["max_degree"] for r in rows)


def test_engines_agree_with_the_recount(quick_run):
    """Every stream runs to its end or to --max-batches 4 (the fallback graph's stream is one batch)."""
    _, _, _, rows, _ = quick_run
    for r in rows:
        if r["engine"] in ("recount", "cpu-1", "cpu-all"):
            whole = str(min(4, int(r["stream_batches"])))
            assert (r["status"], r["agree"], r["batches_run"]) == ("ok", "yes", whole), r
        assert r["agree"] != "no", r
    assert {r["status"] for r in rows if r["engine"] == "networkx"} <= {"ok", "capped"}


def test_batches_csv_and_latency_plot_written(quick_run):
    _, out, summary, rows, _ = quick_run
    batches = summary.with_name(summary.stem + "-batches.csv")
    with open(batches, newline="") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == BATCH_COLUMNS
        per_engine = [b for b in reader if b["engine"] == "cpu-all"]
    runs = [r for r in rows if r["engine"] == "cpu-all"]
    assert len(runs) == 2 * 2  # graphs x patterns
    assert len(per_engine) == sum(int(r["batches_run"]) for r in runs) >= 4 + 2
    assert (out / f"{summary.stem}-latency.png").stat().st_size > 0


def test_gpu_engine_runs_or_is_skipped_with_a_reason(quick_run):
    _, _, _, rows, _ = quick_run
    gpu = [r for r in rows if r["engine"] == "gpu"]
    assert gpu and all(r["status"] == "ok" or (r["status"] == "skipped" and r["note"]) for r in gpu)


def test_the_suite_imports_nothing_of_the_service():
    code = ("import sys, deltamatch.bench.__main__, deltamatch.bench.suite, deltamatch.bench.rest_engine; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('ray', 'fastapi', 'uvicorn', 'cupy')"
            " or m.startswith('deltamatch.service')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
