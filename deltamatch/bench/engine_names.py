"""The suite's engine names, in display order, and what each name switches.

Kept free of heavy imports so the report and plots can use it.  An incremental name is
`BASE[-noshare][-nohoist]`: BASE is cpu-1 (one thread), cpu-all (all threads) or gpu;
`-noshare` runs per-edge plans (the shared-plans ablation), `-nohoist` the greedy order
with no loop-invariant candidate sets (the hoisting ablation).
"""

from __future__ import annotations

from typing import NamedTuple

_BASES = ("gpu", "cpu-all", "cpu-1")
_ABLATIONS = ("", "-noshare", "-nohoist")

INCREMENTAL = tuple(b + a for b in _BASES for a in _ABLATIONS) + ("rest",)
ENGINES = INCREMENTAL[:-1] + ("recount", "networkx", "rest")
DEFAULT_ENGINES = ("recount", "cpu-1", "cpu-all", "gpu", "networkx")
# (ablation, what it is compared with): the ratio columns of the report.
ABLATION_PAIRS = tuple((b + a, b) for b in _BASES for a in _ABLATIONS[1:])


class EngineVariant(NamedTuple):
    """What an incremental engine name selects."""

    backend: str  # cpu | cuda
    all_threads: bool
    shared: bool
    hoist: bool


def engine_variant(name: str) -> EngineVariant:
    """The switches of an incremental engine name (see the module docstring)."""
    base = next(b for b in _BASES if name.startswith(b))
    return EngineVariant("cuda" if base == "gpu" else "cpu", base != "cpu-1",
                         "-noshare" not in name, "-nohoist" not in name)
