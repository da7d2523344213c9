"""The benchmark suite (SPEC §4): engines side by side on RMAT, real and user graphs; CSV and plots.

Precedence of settings: built-in defaults < `--quick` < `--config FILE` (JSON, BenchConfig
field names) < options given on the command line.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

QUICK = {
    "graphs": ["rmat:11", "ca-GrQc"],
    "patterns": ["triangle", "diamond"],
    "batch_sizes": [100, 1000],
    "delete_fraction": 0.1,
    "max_batches": 15,
    "nx_time_limit": 10.0,
    "time_limit": 60.0,
    "tag": "quick",
}


def _items(values: list[str]) -> list[str]:
    return [x for v in values for x in v.split(",") if x]


def _scales(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    try:
        a, b = int(lo), int(hi or lo)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--scales {text!r}: expected A-B, e.g. 16-23") from exc
    if not 1 <= a <= b <= 31:
        raise argparse.ArgumentTypeError(f"--scales {text!r}: need 1 <= A <= B <= 31")
    return list(range(a, b + 1))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `deltamatch bench` options (every default lives in BenchConfig)."""
    s = argparse.SUPPRESS
    a = parser.add_argument
    a("--quick", action="store_true", default=s, help="small CPU run: RMAT 2^11 + ca-GrQc, < 5 minutes")
    a("--config", type=Path, default=s, help="JSON file of BenchConfig fields (bench/configs/)")
    a("--graphs", nargs="+", default=s, metavar="G",
      help="rmat:SCALE[:EF[:SEED]], a real graph's name (ca-GrQc, email-Enron, ...) or an edge file")
    a("--patterns", nargs="+", default=s, metavar="P", help="built-in names or edge lists like 0-1,1-2,2-0")
    a("--induced", action="store_true", default=s, help="vertex-induced matching")
    a("--batch", dest="batch_sizes", nargs="+", default=s, metavar="N", help="batch sizes, e.g. 100 1000")
    a("--load-fraction", type=float, default=s, help="share of the edges loaded before streaming (0.9)")
    a("--shuffle", type=int, default=s, metavar="SEED", help="permute the edges first (default: file order)")
    a("--delete-fraction", type=float, default=s, help="share of each batch that deletes present edges")
    a("--seed", type=int, default=s, help="seed for choosing the deleted edges")
    a("--max-batches", type=int, default=s, help="stream at most this many batches per case")
    a("--engines", nargs="+", default=s, metavar="E",
      help="recount cpu-1 cpu-all gpu networkx (default); *-noshare (per-edge plans); "
           "*-nohoist (greedy order, no hoisting); cpu-*-noset (no set-size counting); "
           "cpu-*-noswap (no seed reversal); cpu-*-nobits (no seed-row bit sets); "
           "cpu-*-nodrive (no short-row walks); cpu-*-nomemo (no per-task last-level memo); "
           "cpu-*-norev (memo plans never counted from the seed side); "
           "cpu-*-noreuse (no level-2 set shared by a seed's plans); "
           "cpu-*-nofuse (the 4-cycle's and diamond's last two levels not fused); rest")
    a("--workers", type=int, default=s, help="replicas per incremental engine (busy time / imbalance)")
    a("--policy", default=s, help="task allocation policy between the replicas")
    a("--list-limit", type=int, default=s, help="matches listed per batch and side (0: counts only)")
    a("--time-limit", type=float, default=s, metavar="S", help="cap every engine run at S seconds")
    a("--nx-max-edges", type=int, default=s, help="skip networkx on larger graphs")
    a("--nx-time-limit", type=float, default=s, metavar="S", help="cap networkx at S seconds per case")
    a("--rest", dest="rest_url", default=s, metavar="URL", help="also run end to end through this service")
    a("--data-dir", default=s, help="where named real graphs live (default ../shared/data)")
    a("--out", dest="out_dir", default=s, help="results directory (default bench/results)")
    a("--tag", default=s, help="run id prefix")
    a("--sweep", action="store_true", default=s, help="size sweep over RMAT scales (--scales)")
    a("--scales", type=_scales, default=s, metavar="A-B", help="sweep scales (default 10-13; 16-23 on a GPU)")
    a("--edge-factor", type=int, default=s, help="sweep RMAT edge factor (16)")
    a("--rmat-seed", type=int, default=s, help="sweep RMAT seed (1)")
    a("--extra", dest="extras", action="append", default=s, metavar="NAME",
      help="also run a registered extra benchmark (e.g. allocation)")
    a("--no-plots", dest="plots", action="store_false", default=s, help="skip the matplotlib plots")
    a("--no-progress", dest="progress", action="store_false", default=s, help="no progress bar")


def build_config(args: argparse.Namespace):
    """BenchConfig from parsed arguments (see module docstring for precedence)."""
    from deltamatch.bench.suite import BenchConfig

    given = {k: v for k, v in vars(args).items() if k != "command"}
    fields = {f.name for f in dataclasses.fields(BenchConfig)}
    values: dict = {}
    if given.pop("quick", False):
        values.update(QUICK)
    if "config" in given:
        path = given.pop("config")
        data = json.loads(Path(path).read_text())
        bad = sorted(set(data) - fields - {"sweep", "scales", "edge_factor", "rmat_seed"})
        if bad:
            raise ValueError(f"{path}: unknown field {bad[0]!r}")
        values.update(data)
    values.update(given)
    for key in ("graphs", "engines"):
        if key in values:
            values[key] = _items(values[key])
    if "batch_sizes" in values:
        try:
            values["batch_sizes"] = [int(x) for x in _items([str(v) for v in values["batch_sizes"]])]
        except ValueError as exc:
            raise ValueError(f"--batch: batch sizes must be integers ({exc})") from exc
    if values.pop("sweep", False):
        scales = values.pop("scales", None) or list(range(10, 14))
        if isinstance(scales, str):
            scales = _scales(scales)
        ef, seed = values.pop("edge_factor", 16), values.pop("rmat_seed", 1)
        values["graphs"] = [f"rmat:{s}:{ef}:{seed}" for s in scales]
        values["mode"] = "sweep"
        values.setdefault("tag", "sweep")
    for key in ("scales", "edge_factor", "rmat_seed"):
        values.pop(key, None)
    return BenchConfig(**values)


def run(args: argparse.Namespace) -> int:
    """Run the suite; 0 when every engine agreed with the recount, 1 otherwise, 2 on bad arguments."""
    from deltamatch.bench.suite import run_suite

    try:
        config = build_config(args)
        result = run_suite(config)
    except (ValueError, OSError) as exc:
        print(f"deltamatch bench: error: {exc}", file=sys.stderr)
        return 2
    return 1 if result.failed else 0
