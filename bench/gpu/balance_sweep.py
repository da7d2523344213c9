"""The load-balance thresholds swept on the same batches: which settings make a batch fastest.

Loads an RMAT graph into a GpuGraph (the first 90% of its edges), applies `--batches` insert
batches of `--batch` edges and, after each, counts every pattern's new side once per setting,
`--repeats` times, in turn (so that drift on the card spreads over all settings).  A setting is
`name:key=value,...` over the fields of `cuda_engine.Balance`, the module's chunk constants
`AUTO_CHUNK_SHARE` and `MIN_CHUNK_COST`, and `HUB_BITMAP_BYTES` and `HUB_MIN_DEGREE` (the setting's
counts then run on hub bitmaps of that budget or least degree, built for it after each batch, the
build timed apart; the others on the graph's own, which its batches keep current); `default`
(Balance()) always runs first and every count must equal its count.  Prints per pattern the
median wall time of each setting over all its runs and its ratio to the default's; with
`--counters`, each batch's count again per setting in the statistics build, printing its lanes
and per-warp busy spread (`bench_gpu.balance_note`).

    python bench/gpu/balance_sweep.py --scale 20 --batch 1000 --patterns 4-clique,diamond \\
        --settings "defer512:defer_cost=512;share8k:share_pairs=8192"
"""

from __future__ import annotations

import sys
import time
from dataclasses import fields
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import cupy as cp  # noqa: E402
from bench_gpu import (  # noqa: E402
    balance_note,
    device_batch_view,
    loaded_rmat,
    median_lines,
    shared_plan_tables,
    sweep_parser,
)

from deltamatch.kernels import cuda_engine as engine  # noqa: E402
from deltamatch.scheduler.tasks import NEW, batch_tasks  # noqa: E402

CONSTANTS = ("AUTO_CHUNK_SHARE", "MIN_CHUNK_COST")
# Hub bitmap knobs -> with_hub_bitmaps' arguments.
HUB_KNOBS = {"HUB_BITMAP_BYTES": "budget_bytes", "HUB_MIN_DEGREE": "min_degree"}


class Setting(NamedTuple):
    balance: engine.Balance
    constants: dict[str, int]  # module constants set while it counts
    hub: dict[str, int]  # with_hub_bitmaps' arguments of its own bitmaps (empty: the graph's own)


def parse_settings(text: str) -> dict[str, Setting]:
    """name -> Setting of every `name:key=value,...` in `text` (`;` apart)."""
    kinds = {f.name: f.type for f in fields(engine.Balance)}
    out = {"default": Setting(engine.Balance(), {}, {})}
    for item in filter(None, (s.strip() for s in text.split(";"))):
        name, _, body = item.partition(":")
        balance, constants, hub = {}, {}, {}
        for pair in filter(None, body.split(",")):
            key, _, value = pair.partition("=")
            if key in CONSTANTS:
                constants[key] = int(value)
            elif key in HUB_KNOBS:
                hub[HUB_KNOBS[key]] = int(value)
            elif key in kinds:
                balance[key] = value in ("1", "true", "True") if kinds[key] in (bool, "bool") else int(value)
            else:
                known = CONSTANTS + tuple(HUB_KNOBS)
                raise SystemExit(f"{name}: {key} is neither a Balance field nor one of {known}")
        out[name] = Setting(engine.Balance(**balance), constants, hub)
    return out


def timed_count(view, plans, tasks, batch, balance: engine.Balance, constants: dict[str, int],
                stats: engine.KernelStats | None = None) -> tuple[float, int]:
    """(wall seconds, matches) of one new-side count under `balance` and the module `constants`
    (with `stats`, in the statistics build, filling them)."""
    saved = {key: getattr(engine, key) for key in constants}
    for key, value in constants.items():
        setattr(engine, key, value)
    try:
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        total = int(engine.count_tasks(view, plans, tasks, batch, plans.induced, balance=balance,
                                       stats=stats).sum())
        return time.perf_counter() - t0, total
    finally:
        for key, value in saved.items():
            setattr(engine, key, value)


def main() -> int:
    ap = sweep_parser(__doc__)
    ap.add_argument("--patterns", default="4-clique,diamond,4-cycle")
    ap.add_argument("--settings", default="", help="name:key=value,...;... (default always runs)")
    ap.add_argument("--counters", action="store_true", help="each setting's lanes and busy spread per batch")
    args = ap.parse_args()
    settings = parse_settings(args.settings)
    edges, n, cut, g = loaded_rmat(args.scale)
    print(f"rmat:{args.scale}: {edges.shape[0]} edges, {cut} loaded; {args.batches} insert batches of "
          f"{args.batch}, {args.repeats} runs per setting; settings: {', '.join(settings)}")
    names = args.patterns.split(",")
    plans = shared_plan_tables(names)
    times: dict[tuple[str, str], list[float]] = {(p, s): [] for p in names for s in settings}
    for b in range(args.batches):
        ins = edges[cut + b * args.batch: cut + (b + 1) * args.batch]
        g.apply(ins[:0], ins)
        view = device_batch_view(ins, n)
        graphs = {}
        for setting, (_, _, hub) in settings.items():
            graphs[setting] = g.view()
            if hub:
                plain = graphs[setting]._replace(hub_row=None, hub_bits=None)
                cp.cuda.Device().synchronize()
                t0 = time.perf_counter()
                graphs[setting] = engine.with_hub_bitmaps(plain, **hub)
                cp.cuda.Device().synchronize()
                ms = (time.perf_counter() - t0) * 1e3
                hubs = int(cp.count_nonzero(graphs[setting].hub_row))
                print(f"batch {b} {setting}: {hubs} hub bitmaps built in {ms:.2f} ms")
        for name in names:
            tasks = batch_tasks(plans[name], ins, 0, NEW)
            want = None
            for round_ in range(args.repeats + 1):  # round 0 warms every setting up, untimed
                for setting, (balance, constants, _) in settings.items():
                    seconds, total = timed_count(graphs[setting], plans[name], tasks, view, balance,
                                                 constants)
                    want = total if want is None else want
                    if total != want:
                        raise SystemExit(f"{name} batch {b}: {setting} counted {total}, default {want}")
                    if round_:
                        times[name, setting].append(seconds)
            if args.counters:
                for setting, (balance, constants, _) in settings.items():
                    stats = engine.KernelStats()
                    timed_count(graphs[setting], plans[name], tasks, view, balance, constants, stats)
                    print(f"batch {b} {name} {setting}: {balance_note(stats)}")
        print(f"batch {b} done", flush=True)
    for name in names:
        print(f"{name}:")
        print("\n".join(median_lines({setting: times[name, setting] for setting in settings}, "default")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
