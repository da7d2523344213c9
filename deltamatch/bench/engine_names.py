"""The suite's engine names, in display order, and what each name switches.

Kept free of heavy imports so the report and plots can use it.  An incremental name is
`BASE[-noshare][-nohoist]`: BASE is cpu-1 (one thread), cpu-all (all threads) or gpu;
`-noshare` runs per-edge plans (the shared-plans ablation), `-nohoist` the greedy order
with no loop-invariant candidate sets (the hoisting ablation).  The CPU engines also take
`-noset` (every last-level candidate tested, no set-size counting), `-noswap` (seeds never
reversed toward the lower-degree row), `-nobits` (no bit sets of long seed rows),
`-nodrive` (a base level's set always walked, never a shorter neighbour row), `-nomemo`
(the last level sized per prefix, never memoized per task), `-norev` (memo plans never
counted from the seed side), `-noreuse` (every task builds its own level-2 set) and `-nofuse`
(the 4-cycle's and diamond's last level run per level-2 vertex, never fused): the
`cpu_engine.EngineOptions` ablations.
"""

from __future__ import annotations

from typing import NamedTuple

_BASES = ("gpu", "cpu-all", "cpu-1")
_ABLATIONS = ("", "-noshare", "-nohoist")
_CPU_ABLATIONS = ("-noset", "-noswap", "-nobits", "-nodrive", "-nomemo", "-norev", "-noreuse", "-nofuse")


def _ablations(base: str) -> tuple[str, ...]:
    return _ABLATIONS + (_CPU_ABLATIONS if base.startswith("cpu") else ())


INCREMENTAL = tuple(b + a for b in _BASES for a in _ablations(b)) + ("rest",)
ENGINES = INCREMENTAL[:-1] + ("recount", "networkx", "rest")
DEFAULT_ENGINES = ("recount", "cpu-1", "cpu-all", "gpu", "networkx")
# (ablation, what it is compared with): the ratio columns of the report.
ABLATION_PAIRS = tuple((b + a, b) for b in _BASES for a in _ablations(b)[1:])


class EngineVariant(NamedTuple):
    """What an incremental engine name selects."""

    backend: str  # cpu | cuda
    all_threads: bool
    shared: bool
    hoist: bool
    set_count: bool = True  # CPU engine only
    seed_swap: bool = True  # CPU engine only
    seed_bits: bool = True  # CPU engine only
    drive_short: bool = True  # CPU engine only
    last_memo: bool = True  # CPU engine only
    reverse_last: bool = True  # CPU engine only
    reuse_level2: bool = True  # CPU engine only
    fuse_last: bool = True  # CPU engine only


def engine_variant(name: str) -> EngineVariant:
    """The switches of an incremental engine name (see the module docstring)."""
    base = next(b for b in _BASES if name.startswith(b))
    return EngineVariant("cuda" if base == "gpu" else "cpu", base != "cpu-1",
                         "-noshare" not in name, "-nohoist" not in name,
                         "-noset" not in name, "-noswap" not in name, "-nobits" not in name,
                         "-nodrive" not in name, "-nomemo" not in name,
                         "-norev" not in name, "-noreuse" not in name, "-nofuse" not in name)
