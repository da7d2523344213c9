"""Engine warm-up: one session compiles every CPU engine entry point in a fresh process."""

from __future__ import annotations

import json
import subprocess
import sys

ENTRY_POINTS = {
    "deltamatch.kernels.cpu_engine": ["_run_serial", "_run_parallel", "_canonical"],
    "deltamatch.workers.graph": ["_has_edges_serial", "_has_edges_parallel", "_rewrite_chunk",
                                 "_rewrite_rows_parallel"],
}

PROBE = f"""
import importlib, json
from deltamatch.scheduler.core import SchedulerCore, WorkerPool
from deltamatch.scheduler.warmup import exercise
from deltamatch.workers.replica import GraphReplica
def compiled():
    return {{m + "." + f: len(getattr(importlib.import_module(m), f).signatures)
            for m, fs in {ENTRY_POINTS!r}.items() for f in fs}}
before = compiled()
core = SchedulerCore(WorkerPool([GraphReplica("cpu"), GraphReplica("cpu")]))
exercise(core)
print(json.dumps([before, compiled(), core.names.kind, [r.total for r in core.patterns.values()]]))
"""


def test_exercise_compiles_every_entry_point():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True,
                         timeout=300)
    before, after, kind, totals = json.loads(out.stdout)
    assert all(n == 0 for n in before.values())
    assert all(n > 0 for n in after.values()), after
    assert kind == "str" and all(t > 0 for t in totals)
