"""Engine warm-up: one session compiles every numba entry point in a fresh process, and
after it no batch size compiles anything (nor runs much slower the first time)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

ENTRY_POINTS = {
    "deltamatch.kernels.cpu_engine": ["_run_serial", "_run_parallel", "_canonical", "_canonical_serial"],
    "deltamatch.workers.graph": ["_has_edges_serial", "_has_edges_parallel", "_rewrite_chunk",
                                 "_rewrite_rows_parallel"],
    "deltamatch.workers.features": ["_common_serial", "_common_parallel"],
    "deltamatch.scheduler.allocation": ["_greedy"],
    "deltamatch.scheduler.cost": ["_task_costs"],
}

COMPILED = f"""
import importlib, json, pkgutil, time
import numpy as np
from numba.core.registry import CPUDispatcher
import deltamatch
from deltamatch.scheduler.core import SchedulerCore, WorkerPool
from deltamatch.scheduler.warmup import exercise
from deltamatch.workers.replica import GraphReplica
def compiled():
    return {{m + "." + f: len(getattr(importlib.import_module(m), f).signatures)
            for m, fs in {ENTRY_POINTS!r}.items() for f in fs}}
def every_dispatcher():
    # Signatures of every numba function of the engine's packages, imported or not yet.
    names = [m.name for m in pkgutil.walk_packages(deltamatch.__path__, "deltamatch.")
             if m.name.split(".")[1] in ("kernels", "workers", "scheduler")]
    return {{n + "." + k: len(v.signatures) for n in names
            for k, v in vars(importlib.import_module(n)).items() if isinstance(v, CPUDispatcher)}}
"""

EXERCISE = COMPILED + """
before = compiled()
core = SchedulerCore(WorkerPool([GraphReplica("cpu"), GraphReplica("cpu")]))
exercise(core)
print(json.dumps([before, compiled(), core.names.kind, [r.total for r in core.patterns.values()]]))
"""

# Batch sizes in a shuffled order, each inserted as fresh random edges (up to 200 of them on a hub,
# so that a GPU defers and shares work) and deleted again, REPEATS times; the first round is the
# one a compile on the hot path would slow down; "{backend}" is replaced per run.
SIZES = [100_000, 1, 383, 7, 1000]
REPEATS = 4
HOT_PATH = COMPILED + f"""
core = SchedulerCore(WorkerPool([GraphReplica("{{backend}}"), GraphReplica("{{backend}}")]))
exercise(core)
before = every_dispatcher()
rng = np.random.default_rng(7)
seconds = {{n: [] for n in {SIZES!r}}}
for rep in range({REPEATS}):
    for n in {SIZES!r}:
        ids = rng.integers(0, 2 * n + 10, size=(n, 2))
        ids[: min(n // 3, 200), 0] = 0
        ids = ids[ids[:, 0] != ids[:, 1]]
        edges = np.char.add("r%d-%d-" % (rep, n), ids.astype(str))
        t0 = time.perf_counter()
        core.apply(edges, None)
        t1 = time.perf_counter()
        core.apply(None, edges)
        seconds[n].append(max(t1 - t0, time.perf_counter() - t1))
print(json.dumps([before, every_dispatcher(), seconds]))
"""


def _probe(script: str) -> list:
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         timeout=600)
    return json.loads(out.stdout)


def test_exercise_compiles_every_entry_point():
    before, after, kind, totals = _probe(EXERCISE)
    assert all(n == 0 for n in before.values())
    assert all(n > 0 for n in after.values()), after
    assert kind == "str" and all(t > 0 for t in totals)


@pytest.fixture(scope="module", params=["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def hot_path(request) -> list:
    if request.param == "cuda":
        from deltamatch.workers.cuda_backend import cuda_available

        if not cuda_available():
            pytest.skip("needs CuPy and a CUDA device")
    return _probe(HOT_PATH.replace("{backend}", request.param))


def test_no_batch_size_compiles_after_the_warm_up(hot_path):
    before, after, _ = hot_path
    assert {m + "." + f for m, fs in ENTRY_POINTS.items() for f in fs} <= before.keys()
    assert after == before


def test_first_batch_of_each_size_runs_near_its_steady_latency(hot_path):
    """Within 2x of the median of the later rounds, plus 50 ms for a loaded machine's noise
    (a compile costs 0.3-20 s, a load from numba's cache tens of ms per entry point)."""
    seconds = hot_path[2]
    for n, times in seconds.items():
        steady = sorted(times[1:])[len(times[1:]) // 2]
        assert times[0] <= 2 * steady + 0.05, (n, times)
