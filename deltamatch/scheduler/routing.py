"""Which engine runs a task group: the device's or the CPU engine, by predicted size.

A group (one pattern, one side, one worker's share of a batch) whose predicted cost
(`scheduler/cost.py`, PGMiner's units) is below the crossover runs on the worker's CPU
engine even when the worker has a GPU: a kernel launch, its transfers and its device
graph update cost a few ms, more than a small group's whole search on the host.  The
crossover is a setting, to be measured on each device (`deltamatch bench --sweep`); the
default 0 sends every group to the device.  `DELTAMATCH_ROUTE` forces either engine.
A worker without a GPU runs everything on the CPU whatever the route says.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

ROUTE_ENV = "DELTAMATCH_ROUTE"  # auto (default), cpu or gpu
CROSSOVER_ENV = "DELTAMATCH_ROUTE_CROSSOVER"  # predicted cost below which auto picks the CPU
MODES = ("auto", "cpu", "gpu")


@dataclass(frozen=True)
class Routing:
    """The route setting: `mode` and, for `auto`, the `crossover` in predicted-cost units."""

    mode: str = "auto"
    crossover: float = 0.0

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"{ROUTE_ENV}: expected one of {', '.join(MODES)}, got {self.mode!r}")
        if not self.crossover >= 0:
            raise ValueError(f"{CROSSOVER_ENV}: expected a non-negative number, got {self.crossover!r}")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Routing:
        env = os.environ if env is None else env
        mode = env.get(ROUTE_ENV, "auto").strip().lower() or "auto"
        raw = env.get(CROSSOVER_ENV, "0").strip() or "0"
        try:
            crossover = float(raw)
        except ValueError:
            raise ValueError(f"{CROSSOVER_ENV}: expected a non-negative number, got {raw!r}") from None
        return cls(mode, crossover)

    def on_cpu(self, predicted: float | None) -> bool:
        """Whether a group of this predicted cost runs on the CPU engine (None: the policy
        predicted nothing, so `auto` keeps it on the device)."""
        if self.mode != "auto":
            return self.mode == "cpu"
        return predicted is not None and predicted < self.crossover
