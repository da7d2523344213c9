"""Extra benchmarks that plug into a suite run (`--extra NAME`), e.g. the allocation ablation.

An extra is `function(context: ExtraContext) -> list[dict] | None`; the rows it returns are
written to `<run>-<name>.csv` with the run's metadata columns appended.  Modules are imported
only when their extra is asked for.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from deltamatch.bench.graphs import BenchGraph, load_graph
from deltamatch.bench.workload import Workload, make_workload

EXTRAS: dict[str, tuple[str, str]] = {
    "allocation": ("deltamatch.bench.allocation", "run_allocation_bench"),
}


@dataclass
class ExtraContext:
    """What an extra gets: the run's config (graphs, patterns, batch sizes, workers...), id and output dir."""

    config: object  # suite.BenchConfig
    run_id: str
    meta: dict
    out_dir: Path

    def graph(self, spec: str) -> BenchGraph:
        """A graph argument resolved as the suite resolves it."""
        return load_graph(spec, self.config.data_dir)

    def workload(self, graph: BenchGraph, batch_size: int) -> Workload:
        """The suite's workload for `graph` at `batch_size` under this run's parameters."""
        c = self.config
        return make_workload(graph.edges, load_fraction=c.load_fraction, batch_size=batch_size,
                             delete_fraction=c.delete_fraction, shuffle=c.shuffle,
                             max_batches=c.max_batches, seed=c.seed)


def register_extra(name: str, module: str, function: str) -> None:
    """Make `--extra name` call `module.function(context)`."""
    EXTRAS[name] = (module, function)


def run_extra(name: str, config, run_id: str, meta: dict, out_dir: Path) -> Path | None:
    """Run one extra; its rows go to `<run_id>-<name>.csv`.  None when it returned no rows."""
    from deltamatch.bench.suite import write_csv

    module, function = EXTRAS[name]
    rows = getattr(importlib.import_module(module), function)(ExtraContext(config, run_id, meta, out_dir))
    if not rows:
        return None
    columns = list(dict.fromkeys(k for row in rows for k in row))
    columns += [k for k in meta if k not in columns]
    path = out_dir / f"{run_id}-{name}.csv"
    write_csv(path, [{**meta, **row} for row in rows], columns)
    return path
