"""Where a batch's matching runs: the device's engine, the workers' CPU engine, the scheduler,
or, for a count, a whole-graph recount.

A group (one pattern, one side, one worker's share of a batch) whose predicted cost
(`scheduler/cost.py`, PGMiner's units) is below the crossover runs on the worker's CPU
engine even when the worker has a GPU: a kernel launch, its transfers and its device
graph update cost a few ms, more than a small group's whole search on the host.  A whole
batch whose predicted cost (every group, both sides) is below `local_below` is matched by
the scheduler itself, on its own copy of the graph with the CPU engine; the workers then
only apply it, and nobody waits for them (a round trip to the workers costs more than such
a batch's search).  Both thresholds are settings, to be measured on each machine
(`bench/gpu/service_latency.py` reports them); the defaults, 0, send every group to the
workers' devices.  `DELTAMATCH_ROUTE` forces one place for everything: `gpu`, `cpu`
(the workers' CPU engines) or `local` (the scheduler).  A worker without a GPU runs
everything on the CPU whatever the route says.

A batch that lists nothing (counts only: bulk loads, replays, a service run with listing off)
may count a side of a pattern without its tasks: when the pattern has a whole-graph formula
(`plan_table.has_count_formula`: the edge-induced diamond, 4-cycle and house), the matches a
batch removes are `total - F(G_old - D)` and those it adds `F(G_new) - F(G_old - D)` (or
`F(G_new) - (total - removed)` when only the new side is recounted), each recount by formula
shared by the workers, which apply the deletions before the insertions for it.  The formula's
time grows with the graph and the tasks' with the batch, so `auto` recounts a side once the
calibrated estimate of its tasks exceeds the last recount's time scaled to the graph's edges
(RMAT-15, two cores:
a house batch of 10^4 took 315 s by its tasks, a recount 0.64 s; a 4-cycle batch of 1,000
62 ms by its tasks, a recount 0.38 s).  Until the calibrator has measured a pattern's tasks,
`auto` recounts a side only when the model predicts its tasks read the graph a thousand times
over (`core.COLD_RECOUNT_READS`); under policies without a cost model it runs them.
`DELTAMATCH_RECOUNT`: `auto` (default), `always` or `never`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

ROUTE_ENV = "DELTAMATCH_ROUTE"  # auto (default), cpu, gpu or local
CROSSOVER_ENV = "DELTAMATCH_ROUTE_CROSSOVER"  # predicted cost below which auto picks the CPU
LOCAL_ENV = "DELTAMATCH_ROUTE_LOCAL"  # predicted batch cost below which auto matches in the scheduler
MODES = ("auto", "cpu", "gpu", "local")
RECOUNT_ENV = "DELTAMATCH_RECOUNT"  # auto (default), always or never
RECOUNT_MODES = ("auto", "always", "never")


@dataclass(frozen=True)
class Routing:
    """The route setting: `mode` and, for `auto`, the `crossover` and `local_below` thresholds
    in predicted-cost units; `recount`, when a count-only batch recounts a formula pattern."""

    mode: str = "auto"
    crossover: float = 0.0
    local_below: float = 0.0
    recount: str = "auto"

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"{ROUTE_ENV}: expected one of {', '.join(MODES)}, got {self.mode!r}")
        if self.recount not in RECOUNT_MODES:
            raise ValueError(f"{RECOUNT_ENV}: expected one of {', '.join(RECOUNT_MODES)}, "
                             f"got {self.recount!r}")
        for name, value in ((CROSSOVER_ENV, self.crossover), (LOCAL_ENV, self.local_below)):
            if not value >= 0:
                raise ValueError(f"{name}: expected a non-negative number, got {value!r}")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Routing:
        env = os.environ if env is None else env
        mode = env.get(ROUTE_ENV, "auto").strip().lower() or "auto"
        recount = env.get(RECOUNT_ENV, "auto").strip().lower() or "auto"
        return cls(mode, _number(env, CROSSOVER_ENV), _number(env, LOCAL_ENV), recount)

    def on_cpu(self, predicted: float | None) -> bool:
        """Whether a group of this predicted cost runs on the CPU engine (None: the policy
        predicted nothing, so `auto` keeps it on the device)."""
        if self.mode != "auto":
            return self.mode == "cpu"
        return predicted is not None and predicted < self.crossover

    def local(self, predicted: float | None) -> bool:
        """Whether a batch of this predicted cost (all its groups) is matched in the scheduler
        (None: nothing predicted, so `auto` sends it to the workers)."""
        if self.mode != "auto":
            return self.mode == "local"
        return predicted is not None and predicted < self.local_below

    def recounts(self, tasks_seconds: float | None, recount_seconds: float) -> bool:
        """Whether a count-only batch counts one side of a formula pattern by a recount, given the
        estimated seconds of that side's tasks (None: no cost model, so `auto` runs them) and of
        the recount."""
        if self.recount != "auto":
            return self.recount == "always"
        return tasks_seconds is not None and tasks_seconds > recount_seconds


def _number(env: Mapping[str, str], name: str) -> float:
    raw = env.get(name, "0").strip() or "0"
    try:
        return float(raw)
    except ValueError:
        raise ValueError(f"{name}: expected a non-negative number, got {raw!r}") from None
