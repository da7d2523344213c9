"""The suite's incremental engine: what it records per batch."""

from __future__ import annotations

import pytest

from deltamatch.bench.engines import run_incremental, run_recount
from deltamatch.bench.rmat import rmat_edges
from deltamatch.bench.workload import make_workload
from deltamatch.scheduler.patterns import parse_pattern


@pytest.mark.parametrize("mode", ["always", "never"])
def test_batches_record_the_sides_counted_by_a_recount(monkeypatch, mode):
    monkeypatch.setenv("DELTAMATCH_RECOUNT", mode)
    workload = make_workload(rmat_edges(8), batch_size=100, delete_fraction=0.2, seed=3)
    pattern = parse_pattern("4-cycle")
    run = run_incremental(workload, pattern, engine="cpu-1", backend="cpu", threads=1, workers=2)
    recount = run_recount(workload, pattern, backend="cpu", threads=1)
    assert [b.total for b in run.batches] == [b.total for b in recount.batches]
    sides = "old+new" if mode == "always" else ""
    assert [b.recounted for b in run.batches] == [sides] * len(workload.batches)
