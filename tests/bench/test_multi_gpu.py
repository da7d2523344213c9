"""The several-workers benchmark: end to end on CPU workers over a tiny RMAT graph, its placement
rules and its time predictions."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from deltamatch.bench.multi_gpu import COLUMNS, Budget, MultiConfig, _placement, worker_env
from deltamatch.scheduler.allocation import POLICIES

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(300)  # about 20 s with numba's cache warm; a cold cache compiles in every worker
def test_runs_end_to_end_on_cpu_workers(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), RAY_USAGE_STATS_ENABLED="0")
    done = subprocess.run(
        [sys.executable, "-m", "deltamatch.bench.multi_gpu", "--graphs", "rmat:8", "--sizes", "40",
         "--workers", "1", "2", "--backend", "cpu", "--batches", "2", "--warmup", "1",
         "--out", str(tmp_path)],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (path,) = tmp_path.glob("multi-gpu-*.csv")
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    assert set(COLUMNS) | {"commit", "device", "date"} <= set(reader.fieldnames)
    measured = [r for r in rows if r["warmup"] == "0"]
    assert {r["policy"] for r in measured if r["workers"] == "2"} == set(POLICIES)
    assert {r["policy"] for r in measured if r["workers"] == "1"} == {"calibrated"}
    assert len(measured) == 2 * len(POLICIES) + 2
    for r in rows:
        assert float(r["imbalance_busy"]) >= 1 and float(r["imbalance_match"]) >= 1
        assert len(r["busy_s"].split(";")) == int(r["workers"])
        assert 0 <= float(r["allocation_share"]) < 1 and float(r["updates_per_s"]) > 0
        assert int(r["inserted"]) + int(r["deleted"]) + int(r["ignored"]) == 40
    page = path.with_suffix(".md").read_text()
    assert "| rmat-8-16-1 | 40 | 2 | pgminer | 2 |" in page and "nothing: every case ran" in page


@pytest.mark.parametrize(("backend", "gpus", "per", "want"), [
    ("auto", 0.0, None, ("cpu", 0.0)),
    ("auto", 4.0, None, ("cuda", 1.0)),
    ("cuda", 1.0, None, ("cuda", 0.25)),  # fewer GPUs than workers: they share
    ("cuda", 1.0, 0.25, ("cuda", 0.25)),
    ("cuda", 1.0, 1.0, ValueError),  # Ray would wait forever for the other three
    ("cuda", 4.0, 0.0, ValueError),  # every worker would run on the first card
])
def test_placement(backend, gpus, per, want):
    config = MultiConfig(workers=[1, 2, 4], backend=backend, num_gpus_per_worker=per)
    if want is ValueError:
        with pytest.raises(ValueError):
            _placement(config, gpus)
    else:
        assert _placement(config, gpus) == want


def test_budget_predicts_from_the_nearest_case():
    budget = Budget(100.0)
    assert budget.step_time("g", 1000, 4) is None and budget.fits(None)
    budget.record("g", 1000, 4, 2.0)
    budget.record("g", 1000, 4, 1.0)  # the slowest is kept
    assert budget.step_time("g", 1000, 4) == 2.0
    assert budget.step_time("g", 1000, 2) == pytest.approx(4.0)  # twice the work per worker
    assert budget.step_time("g", 10_000, 4) == pytest.approx(20.0)
    assert budget.step_time("other", 1000, 4) is None
    assert not budget.fits(1e6)
    budget.loads.append((1000, 10.0))
    assert budget.load_time(4000) == pytest.approx(40.0)


def test_worker_env_splits_the_cores_and_caps_a_shared_card(monkeypatch):
    monkeypatch.delenv("NUMBA_NUM_THREADS", raising=False)
    monkeypatch.delenv("CUPY_GPU_MEMORY_LIMIT", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)))
    assert worker_env("cpu", 0.0, 4) == {"NUMBA_NUM_THREADS": "4"}
    assert worker_env("cuda", 0.25, 4) == {"CUPY_GPU_MEMORY_LIMIT": "22%"}
    assert worker_env("cuda", 1.0, 4) == {}
    monkeypatch.setenv("CUPY_GPU_MEMORY_LIMIT", "10%")  # the caller's setting wins
    assert worker_env("cuda", 0.25, 4) == {}
