"""GPU benchmark (issue 4): static counts and incremental batches on RMAT, GPU vs CPU engine.

Per RMAT scale: load the first 90% of the edges (generation order) into the device graph,
then stream the rest as insert batches of each size.  For each pattern it measures the GPU
static count, the per-batch GPU time (graph update + matching of the new side), the CPU
engine (numba, all cores) on the very same tasks and graph (and checks the counts agree),
a from-scratch GPU recount of the final graph, a full CSR rebuild, and the achieved
adjacency bytes/s against the measured device-to-device copy bandwidth.  With a pattern that reads
them (the diamond), the device graph keeps its edges' triangles (`TriangleTable`), whose upkeep is
timed apart from the rows' update: the diamond's batches are then also counted from them (the
service's route when nothing is listed; "diamond kept" in the summary, against the same CPU runs
and recount), and its match runs read their last level there (ablation `nokept`: without).  With
`--cpu-stop-ratio R` the CPU engine runs in a child process and is stopped once it has taken R
times the GPU's time on a batch (`deltamatch.bench.cpu_bound`): its ratio is then at least R,
measured without waiting out runs of many minutes.  With `--pipelined` each batch also runs first
timed only as a whole (`pipelined_batch`), as the service's replica runs it: the step-timed run
waits for the device around every update and count, and runs second, on rows the first run grew
(on the RMAT-20 4-clique at 1,000 with deletions the two read the same in session 34; in session
35, with seed pieces, the whole batch read 0.27-0.35 ms over the step-timed sum, and over what
the same batch repeated read in timeline.py --pipeline on other machines; likely each new batch's
scratch allocated from the device, which session 36 found and removed: cuda_engine.STABLE_SCRATCH).
The whole batch is timed twice: until the host holds every count (what the service waits for) and
until the device is idle (a joint batch's deletions may still run: cuda_engine.READ_AHEAD).

    python bench/gpu/bench_gpu.py --scales 20,22 --out $OUT
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import cupy as cp  # noqa: E402
from compile_builds import compile_all  # noqa: E402

from deltamatch.bench.cpu_bound import count_within  # noqa: E402
from deltamatch.bench.plots import gpu_batch_time_plot, gpu_speedup_plot  # noqa: E402
from deltamatch.bench.rmat import rmat_edges  # noqa: E402
from deltamatch.kernels import cpu_engine  # noqa: E402
from deltamatch.kernels import cuda_engine as engine  # noqa: E402
from deltamatch.kernels.plan_table import BatchView, reads_kept_triangles  # noqa: E402
from deltamatch.scheduler.patterns import parse_pattern  # noqa: E402
from deltamatch.scheduler.plans import compile_plans, shared_plans, static_plan  # noqa: E402
from deltamatch.scheduler.tasks import NEW, OLD, batch_tasks  # noqa: E402
from deltamatch.workers.cuda_backend import GpuGraph  # noqa: E402
from deltamatch.workers.replica import joint_sequence  # noqa: E402

STARTED = time.perf_counter()
COLUMNS = [
    "scale",
    "vertices",
    "edges",
    "max_degree",
    "pattern",
    "phase",
    "batch_size",
    "batch",
    "matches",
    "gpu_s",
    "gpu_update_s",
    "cpu_s",
    "cpu_matches",
    "scanned",
    "probes",
    "adj_bytes_logical",
    "adj_bytes_sectors",
    "update_bytes",
    "note",
]


class FlushingWriter:
    """csv.DictWriter that flushes every row, so a run stopped at its limit keeps what it measured."""

    def __init__(self, f) -> None:
        self.f = f
        self.w = csv.DictWriter(f, fieldnames=COLUMNS)
        self.w.writeheader()

    def writerow(self, row: dict) -> None:
        self.w.writerow(row)
        self.f.flush()


def out_of_time(args) -> bool:
    """True once the run's --time-budget is spent (phases not started are left out, and logged)."""
    if args.time_budget and time.perf_counter() - STARTED > args.time_budget:
        log("  (time budget spent: remaining phases skipped)")
        return True
    return False


def log(msg: str) -> None:
    print(msg, flush=True)


def tick() -> float:
    """A host timestamp after the device has finished everything queued."""
    cp.cuda.Device().synchronize()
    return time.perf_counter()


def copy_bandwidth() -> float:
    """Device-to-device copy of 4 GiB, bytes read + written per second (median of 5)."""
    a = cp.ones(1 << 30, dtype=cp.float32)
    b = cp.empty_like(a)
    times = []
    for _ in range(7):
        t = tick()
        b[...] = a
        times.append(tick() - t)
    del a, b
    return 2 * 4 * (1 << 30) / float(np.median(times[2:]))


def rmat_gpu(scale: int, edge_factor: int = 16, seed: int = 1) -> np.ndarray:
    """`rmat_edges` generated on the device, as the int32 pairs the device graph takes."""
    return rmat_edges(scale, edge_factor, seed, gpu=True).astype(np.int32)


def loaded_rmat(scale: int, hub_bits: bool | None = None) -> tuple[np.ndarray, int, int, GpuGraph]:
    """(edges, vertices, loaded, graph): RMAT `scale`'s edges, with the first 90% (`loaded` of them)
    in a GpuGraph (`hub_bits` as GpuGraph takes it) and the rest left for batches (timeline.py,
    balance_sweep.py, task_times.py, ncu_batch.py)."""
    edges = rmat_gpu(scale)
    n = 1 << scale
    cut = int(0.9 * edges.shape[0])
    g = GpuGraph(hub_bits=hub_bits)
    g.build(edges[:cut], n)
    return edges, n, cut, g


def shared_plan_tables(names: list[str]) -> dict:
    """name -> the compiled shared plans (the batch plans) of each pattern."""
    return {name: compile_plans(parse_pattern(name), shared_plans(parse_pattern(name))) for name in names}


def warm_up_paths(edges: np.ndarray, patterns: list[str], ablation: list[str]) -> None:
    """Run every timed device path once on a small graph: CuPy compiles its own kernels on first
    use (seconds on a fresh machine), which must not land in the first timed batch.  That covers
    the match builds of the ablation's settings, the kept triangles on both sides of a batch, and
    the recount of every pattern (its formulas and relabelling).  The match builds compile in
    parallel processes first (compile_builds.py): one at a time, a new match.cu spent a device
    call's whole budget here (sessions 16 and 17)."""
    builds = dict.fromkeys((stats, defines) for variant in ablation if variant in BALANCES
                           for defines in BALANCES[variant].builds() for stats in (False, True))
    compile_all(list(builds), log=log)
    for variant in ablation:
        if variant in BALANCES:
            engine.warm_up(BALANCES[variant].builds())
    n = int(edges.max()) + 1
    cut = int(0.9 * edges.shape[0])
    g = GpuGraph()
    g.build(edges[:cut], n)
    g.keep_triangles(True)
    for name in patterns:
        pattern = parse_pattern(name)
        with contextlib.suppress(engine.DeadlineExceeded):  # compiled all the same
            engine.static_count(g.view(), g.n, compile_plans(pattern, [static_plan(pattern)]), budget_s=10)
    pat = parse_pattern("diamond")
    bplans, splans = compile_plans(pat, shared_plans(pat)), compile_plans(pat, [static_plan(pat)])
    empty = device_batch_view(np.zeros((0, 2), np.int32), n)
    engine.count_total(
        g.view(),
        splans,
        engine.static_tasks(g.view(), g.n, splans),
        empty,
        stats=engine.KernelStats(),
        budget_s=60,
    )
    ins = edges[cut:]
    view = host_batch_view(ins, n)
    g.apply(np.zeros((0, 2), np.int32), ins)
    g.apply(ins[:50], np.zeros((0, 2), np.int32))
    g.compact()
    tasks = batch_tasks(bplans, ins, 0, NEW)
    counts = engine.count_tasks(
        g.view(),
        bplans,
        tasks,
        engine.device_batch(view),
        False,
        stats=engine.KernelStats(),
        budget_s=60,
    )
    off, deg, pool = g.rows_host()
    from deltamatch.kernels.plan_table import GraphView

    cpu_engine.count_tasks(GraphView(off, deg, pool), bplans, tasks, view)
    GpuGraph().build(g.edges(), n)
    cp.cuda.Device().synchronize()
    del counts


def static_degree_ordered(
    g: GpuGraph, name: str, static, empty, want: int | None, base: dict, args, writer
) -> None:
    """Static count on the degree-ordered relabelling (relabel time and count time apart)."""
    t = tick()
    dg = engine.degree_ordered(g.view(), g.n)
    relabel_s = tick() - t
    tasks = engine.static_tasks(dg, g.n, static)
    try:
        t = tick()
        total = engine.count_total(dg, static, tasks, empty, budget_s=args.static_budget)
        t = tick() - t
        note = "" if want is None or want == total else f"MISMATCH (id order: {want})"
        writer.writerow(
            {
                **base,
                "pattern": name,
                "phase": "static_degree_order",
                "matches": total,
                "gpu_s": t,
                "gpu_update_s": relabel_s,
                "note": ("relabel in gpu_update_s " + note).strip(),
            }
        )
        log(
            f"  static {name:10s} degree order {total:>16d} matches  {t * 1e3:10.1f} ms "
            f"(+ relabel {relabel_s * 1e3:.1f} ms) {note}"
        )
    except engine.DeadlineExceeded:
        writer.writerow(
            {**base, "pattern": name, "phase": "static_degree_order", "note": f"over {args.static_budget} s"}
        )
        log(f"  static {name:10s} degree order: stopped at the {args.static_budget} s budget")


def host_batch_view(pairs: np.ndarray, n: int) -> BatchView:
    """DynamicGraph.batch_view's arrays for the CPU engine, built standalone."""
    return BatchView.of_pairs(pairs, np.full(n, -1, dtype=np.int32))


def device_batch_view(pairs: np.ndarray, n: int) -> engine.DeviceBatch:
    v = host_batch_view(pairs, n)
    return engine.device_batch(v)


def stats_bytes(stats: engine.KernelStats) -> tuple[int, int]:
    """Adjacency bytes: logical (4 per entry read) and in 32-byte sectors for the probes."""
    return 4 * stats.scanned + 4 * stats.probes, 4 * stats.scanned + 32 * stats.probes


# PGMiner's ablation, one mechanism at a time: heavy-first order, + splitting, + unrolling, + stealing.
BALANCES = {
    "none": engine.NO_BALANCE,
    "heavy": engine.Balance(split=False, unroll=False, steal=False),
    "split": engine.Balance(unroll=False, steal=False),
    "unroll": engine.Balance(steal=False, unroll_min_k=4),  # + unrolling, 4-vertex patterns too
    "fill": engine.Balance(fill=True),  # all and every resident warp in the first launch
    "all": engine.Balance(),  # every mechanism, unrolling from 5 pattern vertices (Balance.unroll_min_k)
    "allk4": engine.Balance(unroll_min_k=4),  # every mechanism, 4-vertex patterns unrolled too
    "nowindow": engine.Balance(pair_window=False),  # all but the pair loop's window (DM_PAIR_WINDOW)
    "noswap": engine.Balance(seed_swap=False),  # all but the reversed seeds (PlanTable.seed_swap)
    "nohubfirst": engine.Balance(hub_first=False),  # all but a matched hub's bitmap first (DM_HUB_FIRST)
    "nopairhash": engine.Balance(pair_hash=False),  # all but the batch's pair table (DM_PAIR_HASH)
    "nofilter": engine.Balance(pair_filter=False),  # all but the batch's pair filter (dm_pair_maybe)
    "flat32": engine.Balance(flat_below=32, unroll_min_k=4),  # allk4, lists flat below 32 pairs a candidate
    "nolistchecks": engine.Balance(list_checks=False),  # all but a pair list's checks once (DM_LIST_CHECKS)
    "nodriveshort": engine.Balance(drive_short=False),  # all but a short row for a base set (DM_DRIVE_SHORT)
    "notouched": engine.Balance(ranked_touched=False),  # all but lookups for touched vertices only
    "prefetch": engine.Balance(prefetch_next=True),  # all, next candidates read early (DM_PREFETCH_NEXT)
    "staged": engine.Balance(staged_lookups=True),  # all, changed-pair lookups 32 at a time
    "warps24": engine.Balance(warps_per_sm=24),  # all, the match kernels at 80 registers in blocks of 8
    "warps32": engine.Balance(warps_per_sm=32),  # all, the match kernels at 64 registers (they spill)
    "warps36": engine.Balance(warps_per_sm=36),  # all, the match kernels at 56 registers in blocks of 4
    "nomemo": engine.Balance(last_memo=False),  # all but memo plans' last level once per task (match_memo)
    "memochunks4": engine.Balance(memo_chunks=4),  # all and memo tasks deferred, 4 chunks per warp
    "overlap": engine.Balance(memo_overlap=True),  # all and the memo's launch beside the rest's (a stream)
    "nomemoshare": engine.Balance(memo_share=False),  # all but the memo's flushes shared (match_memo_shared)
    "nosetcost": engine.Balance(cost_by_set=False),  # all but chunk costs bounded by the set (4-clique)
    "nopieces": engine.Balance(seed_pieces=0),  # all but heavy seeds' level-2 sets built in pieces
    "pieces8": engine.Balance(seed_pieces=8),  # all, heavy seeds' level-2 sets built in 8 pieces, not 32
}


def sweep_parser(doc: str) -> argparse.ArgumentParser:
    """The arguments of a sweep over the same RMAT batches (balance_sweep.py, triangle_upkeep.py):
    the scale, the batch size, the number of batches and the runs per setting."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--batches", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=3)
    return ap


def median_lines(times: dict[str, list[float]], base: str) -> list[str]:
    """Per setting of `times` (name -> seconds of its runs), its median in ms and the `base`
    setting's median over it (how many times faster it ran): the sweeps' summary lines."""
    reference = float(np.median(times[base]))
    lines = []
    for name, runs in times.items():
        ms = float(np.median(runs)) * 1e3
        lines.append(f"  {name:<14} {ms:9.3f} ms  {reference * 1e3 / ms:5.2f}x {base}")
    return lines


def balance_note(stats: engine.KernelStats) -> str:
    """Lane utilization, per-warp busy spread (max/min, p99/median), deferral, seed pieces' and
    sharing counts, each launch's busiest warp, and the longest launch's warps: how many, how many
    idle, their busy time's quantiles."""
    spread, tail = stats.busy_spread()
    busy = stats.longest_busy()
    worked = busy[busy > 0] / 1e3
    shape = "/".join(f"{q:.0f}" for q in np.percentile(worked, [0, 10, 50, 90, 100])) if worked.size else "-"
    launches = "/".join(f"{int(b.max(initial=0)) / 1e3:.0f}" for b in stats.busy_ns) or "-"
    return (
        f"lanes {stats.lane_utilization:.2f} busy max/min {spread:.2f} p99/med {tail:.2f} "
        f"deferred {stats.deferred} chunks {stats.chunks} pieced {stats.pieced} "
        f"shared lists {stats.published} joins {stats.joins} pairs {stats.shared}; busiest warp per launch "
        f"(us) {launches}; longest: {busy.size} warps, {busy.size - worked.size} idle, "
        f"busy us min/p10/med/p90/max {shape}"
    )


def host_rows(g: GpuGraph):
    """The device graph's rows copied to the host (the CPU engine's input)."""
    from deltamatch.kernels.plan_table import GraphView

    return GraphView(*g.rows_host())


def cpu_count(host, bplans, tasks, view, bound_s: float | None,
              repeats: int = 1) -> tuple[np.ndarray | None, float]:
    """(per-task counts, seconds) of the CPU engine on all host cores: in this process, the least
    time of `repeats` runs (its readings of one batch varied by a third to a half between device
    calls: docs/GPU.md, session 26), or with a bound, once, in a child process stopped after
    `bound_s` s of counting ((None, bound_s) then: the engine takes longer,
    `cpu_bound.count_within`)."""
    if bound_s is None:
        best = float("inf")
        for _ in range(max(repeats, 1)):
            tc = time.perf_counter()
            counts = cpu_engine.count_tasks(host, bplans, tasks, view)
            best = min(best, time.perf_counter() - tc)
        return counts, best
    return count_within(host, bplans, tasks, view, limit_s=max(bound_s, 0.0))


def cpu_text(cpu_s: float | None, cpu_over: float | None) -> str:
    """A batch's CPU time for the log: ms, "> N ms" past the bound, or "-" when not run."""
    if cpu_over is not None:
        return f"> {cpu_over * 1e3:.0f} ms"
    return f"{cpu_s * 1e3:.2f} ms" if cpu_s else "-"


def gpu_side(g: GpuGraph, bplans, tasks, dview, args, balance=None, hub_bits=True, kept=True, then=None):
    """(per-task counts, seconds, stats) of one side of a batch on the GPU, None past the budget.
    Timed as the service runs it (the kernels built without statistics); with `--counters`, a
    second run of the statistics build fills the stats.  `hub_bits=False`: without the graph's
    hub bitmaps; `kept=False`: without its kept triangles; `then`: the timed run's
    `count_tasks(then=...)` (the statistics run reads the graph it leaves)."""
    view = g.view() if hub_bits else g.view()._replace(hub_row=None, hub_bits=None)
    if not kept:
        view = view._replace(tt_keys=None, tt_t=None, tt_bits=0)
    run = partial(engine.count_tasks, view, bplans, tasks, dview, bplans.induced,
                  balance=balance or BALANCES[args.balance], budget_s=args.batch_budget)
    st = engine.KernelStats()
    t = tick()
    try:
        counts = run(then=then)
        seconds = tick() - t
        if args.counters:
            run(stats=st)
    except engine.DeadlineExceeded:
        return None
    return counts, seconds, st


def timed_batch(g: GpuGraph, plans: dict, sides: dict, dels: np.ndarray, ins: np.ndarray, dview, joint: bool,
                args) -> tuple[dict, float, float, int]:
    """One batch on g, G_old before and G_new after, as the service runs it (`GraphReplica.execute`):
    `joint`, the insertions, each pattern's removal and addition tasks in one count on G_old ∪ I
    (`DeviceBatch.joint`) and the deletions; else the removal side on G_old, the update and the
    addition side on G_new.  Returns ({pattern: {side: gpu_side's result}}: a joint count's time and
    statistics on its "new" side, its counts cut at the sides; update seconds (the rows alone), kept
    triangles' seconds, kept diamonds created less destroyed)."""
    results = {name: {} for name in sides}
    upd_s = kept_s = 0.0
    kept_diamonds = 0

    def update(deleted: np.ndarray, inserted: np.ndarray) -> None:
        nonlocal upd_s, kept_s, kept_diamonds
        t = tick()
        g.apply(deleted, inserted)
        kept_s += g.triangle_seconds
        upd_s += tick() - t - g.triangle_seconds
        kept_diamonds += g.last_diamonds[1] - g.last_diamonds[0]

    none = np.zeros((0, 2), dtype=ins.dtype)
    if joint:
        view = dview.joint(dels.shape[0])

        def count(name: str, then) -> None:
            old, new = sides[name]["old"], sides[name]["new"]
            # As the service counts a batch that lists nothing: the deletions queued behind the last
            # count's launches, their host time overlapping the kernels' (and taken out of the count's).
            before = upd_s + kept_s
            got = gpu_side(g, plans[name][0], old.followed_by(new), view, args, then=then)
            if got is None:
                results[name] = {"new": None}
                return
            counts, seconds, st = got
            results[name] = {"old": (counts[: old.size], 0.0, engine.KernelStats()),
                             "new": (counts[old.size:], seconds - (upd_s + kept_s - before), st)}

        joint_sequence(list(sides), count, lambda: update(none, ins), lambda: update(dels, none),
                       queue_deletions=True)
        return results, upd_s, kept_s, kept_diamonds
    for name, tasks in sides.items():
        if "old" in tasks:
            results[name]["old"] = gpu_side(g, plans[name][0], tasks["old"], dview, args)
    update(dels, ins)
    for name, tasks in sides.items():
        results[name]["new"] = gpu_side(g, plans[name][0], tasks["new"], dview, args)
    return results, upd_s, kept_s, kept_diamonds


def pipelined_batch(g: GpuGraph, plans: dict, sides: dict, dels: np.ndarray, ins: np.ndarray, dview,
                    joint: bool, args) -> tuple[dict[str, int], float, float] | None:
    """The batch of `timed_batch` in the same order, timed only as a whole: the host waits for the
    device only where the service's replica does (each count's per-task counts), so an update's
    kernels overlap the next count's host work.  Returns ({pattern: matches created less
    destroyed}, seconds until the host holds every count, seconds until the device is idle too: a
    joint batch's deletions may still run once its counts are read, `cuda_engine.READ_AHEAD`), None
    past the batch budget; g holds G_new either way."""
    net = dict.fromkeys(sides, 0)
    none = np.zeros((0, 2), dtype=ins.dtype)
    joint_view = dview.joint(dels.shape[0]) if joint else None

    def count(name: str, tasks, view, then=None) -> np.ndarray:
        return engine.count_tasks(g.view(), plans[name][0], tasks, view, plans[name][0].induced,
                                  balance=BALANCES[args.balance], budget_s=args.batch_budget, then=then)

    def count_joint(name: str, then) -> None:
        old, new = sides[name]["old"], sides[name]["new"]
        counts = count(name, old.followed_by(new), joint_view, then)
        net[name] += int(counts[old.size:].sum()) - int(counts[: old.size].sum())

    t = tick()
    try:
        if joint:
            joint_sequence(list(sides), count_joint, lambda: g.apply(none, ins), lambda: g.apply(dels, none),
                           queue_deletions=True)
        else:
            try:
                for name, tasks in sides.items():
                    if "old" in tasks:
                        net[name] -= int(count(name, tasks["old"], dview).sum())
            finally:
                g.apply(dels, ins)
            for name, tasks in sides.items():
                net[name] += int(count(name, tasks["new"], dview).sum())
    except engine.DeadlineExceeded:
        return None
    counted = time.perf_counter() - t
    return net, counted, tick() - t


def run_scale(scale: int, patterns: list[str], sizes: list[int], batches: int, args, writer, summary) -> None:
    t0 = time.perf_counter()
    edges = rmat_gpu(scale)
    gen_s = time.perf_counter() - t0
    n = 1 << scale
    cut = int(0.9 * edges.shape[0])
    degree_full = np.bincount(edges.ravel(), minlength=n)
    log(
        f"RMAT scale {scale}: {n} vertices, {edges.shape[0]} edges, max degree {degree_full.max()} "
        f"(generated in {gen_s:.1f} s)"
    )
    g = GpuGraph()
    t = tick()
    g.build(edges[:cut], n)
    load_s = tick() - t
    log(f"  loaded 90% ({cut} edges) into the device graph in {load_s * 1e3:.1f} ms")
    base = dict(scale=scale, vertices=n, edges=edges.shape[0], max_degree=int(degree_full.max()))
    plans = {}
    for name in patterns:
        pat = parse_pattern(name)
        plans[name] = (compile_plans(pat, shared_plans(pat)), compile_plans(pat, [static_plan(pat)]))
    table = None
    if args.kept_triangles and any(reads_kept_triangles(plans[name][0]) for name in patterns):
        t = tick()
        g.keep_triangles(True)
        table = g.triangles
        build_s = tick() - t
        table_bytes = table.capacity * 20  # key 8, t 4, pending 4, rank 4
        writer.writerow({**base, "pattern": "diamond", "phase": "triangle_table", "matches": table.diamonds,
                         "gpu_update_s": build_s, "note": f"{table.held} edges, {table_bytes} bytes"})
        log(f"  kept triangles of {table.held} edges: built in {build_s * 1e3:.1f} ms, "
            f"{table_bytes / 2**30:.2f} GiB, {table.diamonds} diamonds")
    empty = device_batch_view(np.zeros((0, 2), np.int32), n)
    # static counts on G_90
    for name in patterns if args.static else []:
        if out_of_time(args):
            break
        static = plans[name][1]
        tasks = engine.static_tasks(g.view(), g.n, static)
        st = engine.KernelStats()
        try:
            t = tick()
            total = engine.count_total(g.view(), static, tasks, empty, stats=st, budget_s=args.static_budget)
            t = tick() - t
            s = st
            logical, sectors = stats_bytes(s)
            writer.writerow(
                {
                    **base,
                    "pattern": name,
                    "phase": "static",
                    "matches": total,
                    "gpu_s": t,
                    "scanned": s.scanned,
                    "probes": s.probes,
                    "adj_bytes_logical": logical,
                    "adj_bytes_sectors": sectors,
                    "note": f"{tasks.size} tasks; {balance_note(s)}",
                }
            )
            log(
                f"  static {name:10s} {total:>16d} matches  {t * 1e3:10.1f} ms  "
                f"adjacency {logical / t / 1e9:8.1f} GB/s logical, {sectors / t / 1e9:8.1f} GB/s sectors"
            )
            summary.setdefault((scale, name), {})["static_s"] = t
        except engine.DeadlineExceeded:
            writer.writerow(
                {**base, "pattern": name, "phase": "static", "note": f"over {args.static_budget} s"}
            )
            log(f"  static {name:10s} stopped at the {args.static_budget} s budget")
            total = None
        del tasks
        if args.relabel:
            static_degree_ordered(g, name, static, empty, total, base, args, writer)
    # incremental batches: insertions from the held-back 10%, plus --delete-fraction deletions of
    # loaded edges (removal side on G_old, addition side on G_new, as the service runs them)
    pos = cut
    del_pos = 0
    cpu_skip: set[tuple[str, int]] = set()
    gpu_stopped: set[str] = set()
    for size in sizes:
        n_del = int(round(size * args.delete_fraction))
        for b in range(batches):
            if pos + size - n_del > edges.shape[0] or out_of_time(args):
                break
            ins = edges[pos : pos + size - n_del]
            dels = edges[del_pos : del_pos + n_del]
            pos += size - n_del
            del_pos += n_del
            changed = np.concatenate([dels, ins])
            host_view = host_batch_view(changed, n)
            dview = engine.device_batch(host_view)
            host_old = host_rows(g) if args.cpu and n_del else None
            sides = {name: {} for name in patterns if name not in gpu_stopped}
            for name in sides:
                if n_del:
                    sides[name]["old"] = batch_tasks(plans[name][0], changed, n_del, OLD)
                sides[name]["new"] = batch_tasks(plans[name][0], changed, n_del, NEW)
            modes = args.sides.split(",") if n_del else ["apart"]
            for mode in modes:
                if mode != modes[0]:
                    g.apply(ins, dels)  # back to G_old: each mode runs the same batch from the same graph
                joint = mode == "joint"
                label = {"joint": "", "apart": " apart"}[mode] if len(modes) > 1 else ""
                pipelined = None
                if args.pipelined:  # first, so that the step-timed run is the one on a warmer card
                    pipelined = pipelined_batch(g, plans, sides, dels, ins, dview, joint, args)
                    g.apply(ins, dels)
                results, upd_s, kept_s, kept_diamonds = timed_batch(g, plans, sides, dels, ins, dview, joint,
                                                                    args)
                host_new = host_rows(g) if args.cpu else None
                for name in sides:
                    res = results[name]
                    if any(r is None for r in res.values()):
                        gpu_stopped.add(name)
                        writer.writerow(
                            {
                                **base,
                                "pattern": name,
                                "phase": "batch",
                                "batch_size": size,
                                "batch": b,
                                "note": f"over {args.batch_budget} s",
                            }
                        )
                        log(f"  batch {size:>6d}#{b} {name:10s} stopped at the {args.batch_budget} s budget")
                        continue
                    t_gpu = sum(r[1] for r in res.values())
                    kernel_s = sum(r[2].kernel_s for r in res.values())
                    added = int(res["new"][0].sum())
                    removed = int(res["old"][0].sum()) if "old" in res else 0
                    cpu_s = None
                    cpu_over = None  # the CPU engine stopped at --cpu-stop-ratio: it takes longer than this
                    cpu_bound = args.cpu_stop_ratio * t_gpu if args.cpu_stop_ratio else None
                    note = ""
                    if t_gpu > args.cpu_when_gpu_under:
                        cpu_skip.add((name, size))
                    if args.cpu and (name, size) not in cpu_skip:
                        cpu_s = 0.0
                        for side, host in (("old", host_old), ("new", host_new)):
                            if side not in res:
                                continue
                            bound = None if cpu_bound is None else cpu_bound - cpu_s
                            cpu_counts, seconds = cpu_count(host, plans[name][0], sides[name][side],
                                                            host_view, bound, args.cpu_repeats)
                            cpu_s += seconds
                            if cpu_counts is None:
                                cpu_s, cpu_over = None, cpu_bound
                                note = f"cpu over {cpu_bound:.3f} s ({args.cpu_stop_ratio:g}x the GPU)"
                                break
                            if not np.array_equal(cpu_counts, res[side][0]):
                                note = "MISMATCH"
                                log(f"  !! {name} batch {size}#{b} {side}: GPU != CPU")
                        if cpu_s is None or cpu_s > args.cpu_limit:
                            cpu_skip.add((name, size))
                    pipe_s = idle_s = None
                    if pipelined is not None:
                        _, pipe_s, idle_s = pipelined
                        if pipelined[0][name] != added - removed:
                            note = f"{note} MISMATCH pipelined".strip()
                            log(f"  !! {name} batch {size}#{b}: pipelined != step-timed")
                        note = f"{note} pipelined_s {pipe_s:.6f} pipelined_idle_s {idle_s:.6f}".strip()
                    st = res["new"][2]
                    logical, sectors = stats_bytes(st)
                    writer.writerow(
                        {
                            **base,
                            "pattern": name,
                            "phase": "batch",
                            "batch_size": size,
                            "batch": b,
                            "matches": added - removed,
                            "gpu_s": t_gpu,
                            "gpu_update_s": upd_s,
                            "cpu_s": cpu_s,
                            "scanned": st.scanned,
                            "probes": st.probes,
                            "adj_bytes_logical": logical,
                            "adj_bytes_sectors": sectors,
                            "update_bytes": g.last_update_bytes,
                            "note": f"{note} deleted {n_del} sides {mode} kernel_s {kernel_s:.6f} "
                                    f"{balance_note(st)}".strip(),
                        }
                    )
                    rec = summary.setdefault((scale, name + label), {}).setdefault(size, [])
                    rec.append((t_gpu, upd_s, cpu_s, added - removed, cpu_over, pipe_s, idle_s))
                    # Kept counts come from the update's halves deletions first: the service runs them apart.
                    if name == "diamond" and table is not None and not joint:
                        same = kept_diamonds == added - removed
                        note = "" if same else "MISMATCH"
                        writer.writerow({**base, "pattern": name, "phase": "batch_kept", "batch_size": size,
                                         "batch": b, "matches": kept_diamonds, "gpu_s": kept_s,
                                         "gpu_update_s": upd_s, "cpu_s": cpu_s, "note": note})
                        summary.setdefault((scale, "diamond kept" + label), {}).setdefault(size, []).append(
                            (kept_s, upd_s, cpu_s, kept_diamonds, cpu_over, None, None))
                        log(f"  batch {size:>6d}#{b} {name:10s} kept triangles: gpu {kept_s * 1e3:9.2f} ms "
                            f"({t_gpu / kept_s:6.1f}x the match run){'' if same else '  MISMATCH'}")
                    piped = "" if pipe_s is None else f"  pipelined {pipe_s * 1e3:8.2f} ms"
                    piped += "" if idle_s is None else f" (idle {idle_s * 1e3:.2f})"
                    log(
                        f"  batch {size:>6d}#{b} {name + label:10s} +{added:>14d} -{removed:>12d}  "
                        f"gpu {t_gpu * 1e3:9.2f} ms "
                        f"(kernels {kernel_s * 1e3:8.2f})  update {upd_s * 1e3:7.2f} ms"
                        f"{piped}"
                        f"  cpu {cpu_text(cpu_s, cpu_over):>12s}  {balance_note(st)} {note}"
                    )
                    if "old" in sides[name]:
                        continue
                    for variant in args.ablation.split(","):
                        if not variant:
                            continue
                        got = gpu_side(g, plans[name][0], sides[name]["new"], dview, args,
                                       BALANCES.get(variant), hub_bits=variant != "nohub",
                                       kept=variant != "nokept")
                        if got is None:
                            log(f"  batch {size:>6d}#{b} {name:10s} {variant}: over {args.batch_budget} s")
                            continue
                        same = bool(np.array_equal(got[0], res["new"][0]))
                        writer.writerow(
                            {
                                **base,
                                "pattern": name,
                                "phase": f"batch_{variant}",
                                "batch_size": size,
                                "batch": b,
                                "matches": int(got[0].sum()),
                                "gpu_s": got[1],
                                "note": ("" if same else "MISMATCH ")
                                + f"kernel_s {got[2].kernel_s:.6f} "
                                + balance_note(got[2]),
                            }
                        )
                        log(
                            f"  batch {size:>6d}#{b} {name:10s} balance {variant:5s}: "
                            f"gpu {got[1] * 1e3:9.2f} ms ({got[1] / t_gpu:5.2f}x all) {balance_note(got[2])}"
                            f"{'' if same else '  MISMATCH'}"
                        )
    # from-scratch recount of the final graph as the service runs it (cuda_engine.static_count, its
    # relabelling included), and a full CSR rebuild
    for name in patterns:
        if out_of_time(args):
            break
        static = plans[name][1]
        try:
            t = tick()
            total = engine.static_count(g.view(), g.n, static, budget_s=args.static_budget)
            t = tick() - t
            writer.writerow({**base, "pattern": name, "phase": "recount", "matches": total, "gpu_s": t})
            summary.setdefault((scale, name), {})["recount_s"] = t
            log(f"  recount {name:10s} {total:>16d} matches  {t * 1e3:10.1f} ms")
        except engine.DeadlineExceeded:
            writer.writerow(
                {**base, "pattern": name, "phase": "recount", "note": f"over {args.static_budget} s"}
            )
            log(f"  recount {name:10s} stopped at the {args.static_budget} s budget")
    current = g.edges()
    rebuild = GpuGraph()
    t = tick()
    rebuild.build(current, n)
    rb_s = tick() - t
    writer.writerow(
        {**base, "phase": "csr_rebuild", "gpu_update_s": rb_s, "note": f"{current.shape[0]} edges"}
    )
    summary[(scale, "csr_rebuild")] = rb_s
    log(f"  full CSR rebuild of {current.shape[0]} edges on the device: {rb_s * 1e3:.1f} ms")
    del rebuild, g


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scales", default="20,22")
    ap.add_argument("--patterns", default="triangle,4-cycle,diamond,4-clique,house")
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--batches", type=int, default=3)
    ap.add_argument("--static-budget", type=float, default=20.0)
    ap.add_argument(
        "--static",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="time static counts on the loaded 90%% by matching (the recount at the end runs either way)",
    )
    ap.add_argument("--cpu", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument(
        "--cpu-limit", type=float, default=10.0, help="stop CPU runs of a (pattern, size) after one this slow"
    )
    ap.add_argument(
        "--cpu-stop-ratio",
        type=float,
        default=0.0,
        help="run the CPU engine in a child process stopped once it has counted a batch for this many "
        "times the GPU's matching time: a stopped run is recorded as 'cpu over N s', the ratio as at "
        "least this (0: in this process, no limit)",
    )
    ap.add_argument(
        "--cpu-repeats",
        type=int,
        default=1,
        help="count each batch side this many times on the CPU engine and keep the least time "
        "(refused with --cpu-stop-ratio)",
    )
    ap.add_argument(
        "--cpu-when-gpu-under",
        type=float,
        default=1.0,
        help="run the CPU engine on a batch only when the GPU took less than this (s)",
    )
    ap.add_argument(
        "--relabel",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also time static counts on the degree-ordered relabelling",
    )
    ap.add_argument(
        "--ablation",
        default="none,heavy,split",
        help=f"also time every batch with these settings: a name of BALANCES ({', '.join(BALANCES)}: "
        "their comments say what each is), nohub (all but the hub bitmaps) or nokept (all but the kept "
        "triangles). 'all' always runs first; named here it runs again after the others: "
        "the first run of a batch of 1,000 read 10-30%% slower than later ones (docs/GPU.md, session 15). "
        "Batches with deletions run no ablation: their removal side is counted before the update",
    )
    ap.add_argument("--balance", default="all", choices=sorted(BALANCES),
                    help="the setting every batch's timed count runs under (the ablation's beside it)")
    ap.add_argument("--batch-budget", type=float, default=10.0, help="GPU time limit of one batch count (s)")
    ap.add_argument(
        "--counters",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="run each timed batch side again with the kernel statistics (lanes, busy spread, ...)",
    )
    ap.add_argument(
        "--delete-fraction", type=float, default=0.0, help="share of each batch that deletes edges"
    )
    ap.add_argument(
        "--sides",
        default="joint",
        help="how a batch with deletions runs its two sides: joint (one count on G_old ∪ I: the "
        "service's default), apart (the removal side on G_old, the addition side on G_new, "
        "DELTAMATCH_GPU_JOINT_SIDES=0), or both, comma-separated (the graph is set back to G_old between "
        "them; the summary's rows of the second say 'apart')",
    )
    ap.add_argument(
        "--pipelined",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="also run each batch (first, then the graph set back) timed only as a whole, the host "
        "waiting only where the service does: the summary's 'pipelined' columns (the whole batch, "
        "every pattern in it: a ratio to a recount only for one pattern); the step-timed run "
        "waits for the device around every update and count.  Doubles each batch's device time",
    )
    ap.add_argument(
        "--time-budget", type=float, default=0.0, help="seconds after which no new phase starts (0: no limit)"
    )
    ap.add_argument(
        "--kept-triangles",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also count the diamond's batches from kept triangles (TriangleTable)",
    )
    ap.add_argument(
        "--hub-min-degree",
        type=int,
        default=engine.HUB_MIN_DEGREE,
        help="the least degree of a row with a hub bitmap (cuda_engine.HUB_MIN_DEGREE)",
    )
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    args = ap.parse_args()
    if args.cpu_repeats > 1 and args.cpu_stop_ratio:
        ap.error("--cpu-repeats runs in this process; --cpu-stop-ratio runs the CPU engine once, bounded")
    engine.HUB_MIN_DEGREE = args.hub_min_degree
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    gpu = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    commit = os.environ.get("DM_COMMIT", "")
    if not commit:
        try:
            commit = subprocess.run(
                ["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT
            ).stdout.strip()
        except OSError:
            commit = "unknown"
    meta = {
        "commit": commit,
        "device": gpu,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "cpu_threads": int(cpu_engine.numba.get_num_threads()),
        "sms": dev.attributes["MultiProcessorCount"],
        "hub_min_degree": engine.HUB_MIN_DEGREE,
        "cpu_repeats": args.cpu_repeats,
    }
    bw = copy_bandwidth()
    meta["copy_bandwidth_Bps"] = bw
    log(json.dumps(meta))
    log(f"device-to-device copy: {bw / 1e12:.2f} TB/s (read + write)")
    engine.warm_up(engine.Balance().builds())
    check = rmat_gpu(12)
    assert np.array_equal(check, rmat_edges(12).astype(np.int32)), "rmat_gpu differs from rmat_edges"
    warm_up_paths(check, [name for name in args.patterns.split(",") if name], args.ablation.split(","))
    summary: dict = {}
    with open(out / "gpu-bench.csv", "w", newline="") as f:
        writer = FlushingWriter(f)
        for scale in [int(s) for s in args.scales.split(",") if s]:
            if out_of_time(args):
                break
            run_scale(
                scale,
                args.patterns.split(","),
                [int(s) for s in args.sizes.split(",")],
                args.batches,
                args,
                writer,
                summary,
            )
            f.flush()
    (out / "gpu-bench-meta.json").write_text(json.dumps(meta, indent=1))
    gpu_speedup_plot([out / "gpu-bench.csv"], out / "gpu-speedup.png")
    gpu_batch_time_plot([out / "gpu-bench.csv"], out / "gpu-batch-time.png")
    log(
        "\nsummary (median per batch): scale pattern size | gpu match ms | update ms | cpu ms | cpu/gpu | "
        "recount ms | recount/(gpu+update) | pipelined ms | recount/pipelined | pipelined to idle ms"
    )
    # A pipelined time is the whole batch, every pattern's count in it: a ratio to one pattern's
    # recount only where the batch counted that pattern alone.
    alone = len(args.patterns.split(",")) == 1
    for key, rec in summary.items():
        if not isinstance(rec, dict):
            continue
        for size, runs in rec.items():
            if not isinstance(size, int):
                continue
            gm = float(np.median([r[0] for r in runs]))
            um = float(np.median([r[1] for r in runs]))
            cpus = [r[2] for r in runs if r[2] is not None]
            cm = float(np.median(cpus)) if cpus else float("nan")
            over = min((r[4] for r in runs if r[4] is not None), default=None)
            cpu_col, ratio_col = f"{cm * 1e3:9.2f}", f"{cm / gm:7.1f}"
            if not cpus and over is not None:  # every CPU run stopped at its bound
                cpu_col, ratio_col = f"> {over * 1e3:7.0f}", f">= {over / gm:4.1f}"
            counted = key[1].removesuffix(" apart").removesuffix(" kept")  # the recount of its pattern
            rc = summary.get((key[0], counted), {}).get("recount_s", float("nan"))
            pipes = [r[5] for r in runs if r[5] is not None]
            pm = float(np.median(pipes)) if pipes else float("nan")
            idles = [r[6] for r in runs if r[6] is not None]
            im = float(np.median(idles)) if idles else float("nan")
            log(
                f"  {key[0]:2d} {key[1]:10s} {size:>6d} | {gm * 1e3:9.2f} | {um * 1e3:7.2f} | "
                f"{cpu_col} | {ratio_col} | {rc * 1e3:9.1f} | {rc / (gm + um):8.1f} | {pm * 1e3:9.2f} | "
                f"{rc / pm if alone else float('nan'):8.1f} | {im * 1e3:9.2f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
