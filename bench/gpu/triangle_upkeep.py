"""The kept triangles' upkeep per batch (`TriangleTable`'s two sides): a warp per piece of a pair's
shorter row (`triangle_table.PIECE`) against a warp per pair, with and without the hub bitmaps'
lookups (`triangle_table.HUB_LOOKUPS`).

Loads RMAT `--scale` (the first 90% of its edges) into a GpuGraph that keeps its triangles and its
hub bitmaps, then for each of `--batches` batches of `--batch` changes (`--delete-fraction` of them
deletions of loaded edges, the rest insertions from the held-back 10%) runs every setting in turn,
`--repeats` times: the batch, then its inverse, timing the table's part of each
(`GpuGraph.triangle_seconds`; the graph is the same before every run, so every setting sees the same
batches).  A round before them warms every setting up, untimed.  Every run's diamonds destroyed and
created must equal the first setting's.  Prints per setting the median upkeep of the batch and of
its inverse, and the first setting's time over its own.

    python bench/gpu/triangle_upkeep.py --scale 22 --batch 1000 --batches 3
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_gpu import loaded_rmat, median_lines, sweep_parser  # noqa: E402

from deltamatch.workers import triangle_table  # noqa: E402

# name -> (PIECE, HUB_LOOKUPS); the first is the default, which the others are compared with
SETTINGS = {
    "pieces+hubs": (triangle_table.PIECE, True),
    "pieces": (triangle_table.PIECE, False),
    "pair+hubs": (1 << 30, True),
    "pair": (1 << 30, False),  # a warp per pair, every member searched: the upkeep before pieces
}


def main() -> int:
    ap = sweep_parser(__doc__)
    ap.add_argument("--delete-fraction", type=float, default=0.1)
    args = ap.parse_args()
    t0 = time.perf_counter()
    edges, n, cut, g = loaded_rmat(args.scale)
    g.view()  # builds the hub bitmaps, which every apply then keeps current
    g.keep_triangles(True)
    print(f"rmat:{args.scale}: {edges.shape[0]} edges, {cut} loaded, max degree {int(g.host_degree.max())}, "
          f"{int((g.hub_rows != 0).sum()) if g.hub_rows is not None else 0} hub bitmaps, triangles kept "
          f"({time.perf_counter() - t0:.1f} s); {args.batches} batches of {args.batch}, "
          f"{args.delete_fraction:.0%} deletions, {args.repeats} runs per setting", flush=True)
    n_del = int(round(args.batch * args.delete_fraction))
    n_ins = args.batch - n_del
    times = {(s, way): [] for s in SETTINGS for way in ("batch", "inverse")}
    first = next(iter(SETTINGS))
    for b in range(args.batches):
        inserted = edges[cut + b * n_ins: cut + (b + 1) * n_ins]
        deleted = edges[b * n_del: (b + 1) * n_del]
        want = None
        for round_ in range(args.repeats + 1):
            for setting, (piece, hubs) in SETTINGS.items():
                triangle_table.PIECE, triangle_table.HUB_LOOKUPS = piece, hubs
                try:
                    runs = []
                    for way, gone, came in (("batch", deleted, inserted), ("inverse", inserted, deleted)):
                        g.apply(gone, came)
                        runs.append(g.last_diamonds)
                        if round_:
                            times[setting, way].append(g.triangle_seconds)
                finally:
                    triangle_table.PIECE, triangle_table.HUB_LOOKUPS = SETTINGS[first]
                want = runs if want is None else want
                if runs != want:
                    raise SystemExit(f"batch {b}: {setting} gave diamonds {runs}, {first} {want}")
        print(f"batch {b}: diamonds destroyed, created {want[0]}, inverse {want[1]}", flush=True)
    print(f"table rebuilds {g.triangles.rebuilds - 1} (a rebuild in a timed run would dominate it)")
    for way in ("batch", "inverse"):
        print(f"{way} upkeep (median of {len(times[first, way])}):")
        print("\n".join(median_lines({setting: times[setting, way] for setting in SETTINGS}, first)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
