"""Where a batch's GPU wall time goes: kernel by kernel, and the gaps between them (issue 13).

bench_gpu.py reports a 1,000-edge RMAT-20 4-clique batch at about 14 ms of which the match
kernels are 9 ms, and the graph update at 3.5 ms; this script says what the rest is.  It loads
an RMAT graph into a GpuGraph, then for each of `--batches` insert batches (with
`--delete-fraction` deletions) records, under the PyTorch profiler (CUPTI sees CuPy's launches
too), the graph update and each pattern's new-side count as the service runs them (no stats,
so no timing kernels): the wall time of the step, the device time of every kernel and copy by
name, and the idle time (wall time during which no kernel or copy ran: the host's launches,
synchronizations and Python).  With `--joint`, a batch with deletions runs as the service's
default does: the insertions, each pattern's two sides in one count, the deletions queued
behind the last pattern's count, and the steps below time the last batch's joint counts; then each
pattern's joint count with the deletions' update queued behind it and after it, interleaved
(`--ab-reps` runs).  Prints one table per step, summed over the batches after the
first (which is printed apart: first use).  With `--host-profile N`, each pattern's count of the
last batch then runs N more times without the profiler: its plain wall time (median), and the
host functions that time goes to under cProfile (a `.get()` that waits for the device shows as
its own time there); so does the graph update, over 2N further batches of the same size.  With
`--step-clock N`, the same counts and updates under a clock on each engine step instead (the
median microseconds a run spends inside each, callees included: the clock costs a fraction of a
microsecond a step where cProfile doubles the time), and with `--graph-replay N` each count's
launches captured once as a CUDA graph and replayed N times (its total checked): the wall time a
count would take without the host's launch path.  `--ab SWITCH,...` times each count with each
boolean of cuda_engine named (DEVICE_CHUNK_ORDER, PACKED_TASK_ORDER, PINNED_UPLOAD) on and off,
interleaved.  With `--joint` and `--pipeline N`, last, the last batch runs N more times from G_old
as the service runs it, under each of `--pipeline-balances` in turn: at the end of each step the
host's time and the device's (a CUDA event recorded there, reached when the device has done what
was queued before it), median microseconds from the batch's start.  Where the device's time is
the host's, the device waited for the host.  With `--pipeline-fresh`, each run is a new batch (the
edges after those above, the graph going on from the last), as the service sees its batches;
with `--pipeline-ab SWITCH`, each balance with a boolean of cuda_engine on and off, interleaved;
with `--pipeline-flush`, 256 MiB of device memory is overwritten before each run (a repeated
batch then finds its rows out of L2, as a new batch does).

    python bench/gpu/timeline.py --scale 20 --batch 1000 --batches 4 --patterns 4-clique,diamond
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import sys
import tempfile
import time
from collections import defaultdict
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import cupy as cp  # noqa: E402
import torch  # noqa: E402
from bench_gpu import BALANCES, device_batch_view, loaded_rmat, shared_plan_tables  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

from deltamatch.kernels import cuda_engine as engine  # noqa: E402
from deltamatch.scheduler.tasks import NEW, OLD, batch_tasks  # noqa: E402
from deltamatch.workers.replica import joint_sequence  # noqa: E402

DEVICE_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset")


def traced(step) -> tuple[float, dict[str, list[float]], float]:
    """Run `step()` under the profiler: (wall s, device s per activity name, idle s)."""
    torch.cuda.synchronize()
    cp.cuda.Device().synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        t0 = time.perf_counter()
        step()
        cp.cuda.Device().synchronize()
        wall = time.perf_counter() - t0
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        prof.export_chrome_trace(f.name)
        events = json.loads(Path(f.name).read_text()).get("traceEvents", [])
    spans = sorted((e["ts"], e["ts"] + e.get("dur", 0), e["name"]) for e in events
                   if e.get("ph") == "X" and e.get("cat") in DEVICE_CATEGORIES)
    by_name: dict[str, list[float]] = defaultdict(list)
    busy, end = 0.0, -np.inf
    for start, stop, name in spans:
        by_name[name].append((stop - start) / 1e6)
        if stop > end:
            busy += stop - max(start, end)
            end = stop
    return wall, by_name, max(0.0, wall - busy / 1e6)


def report(title: str, runs: list[tuple[float, dict[str, list[float]], float]], top: int) -> None:
    if not runs:
        return
    wall = sum(r[0] for r in runs) / len(runs)
    idle = sum(r[2] for r in runs) / len(runs)
    totals: dict[str, float] = defaultdict(float)
    calls: dict[str, int] = defaultdict(int)
    for _, by_name, _ in runs:
        for name, times in by_name.items():
            totals[name] += sum(times) / len(runs)
            calls[name] += len(times)
    device = sum(totals.values())
    launches = sum(calls.values()) / len(runs)
    print(f"{title}: wall {wall * 1e3:.3f} ms, device {device * 1e3:.3f} ms in {launches:.0f} "
          f"kernels/copies, idle {idle * 1e3:.3f} ms (mean of {len(runs)})")
    for name in sorted(totals, key=totals.get, reverse=True)[:top]:
        print(f"  {totals[name] * 1e3:9.3f} ms  x{calls[name] / len(runs):5.1f}  {name[:110]}")


def host_profile(name: str, count, reps: int, top: int, sort: str = "tottime") -> None:
    """Median plain wall time of `count()` over `reps` runs, then the host functions of `reps`
    more under cProfile, by `sort` (pstats' key: own time, or cumulative with callees)."""
    walls = []
    for _ in range(reps):
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        count()
        cp.cuda.Device().synchronize()
        walls.append(time.perf_counter() - t0)
    print(f"host {name}: plain wall median {np.median(walls) * 1e3:.3f} ms, min {min(walls) * 1e3:.3f} ms "
          f"over {reps}")
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(reps):
        count()
    cp.cuda.Device().synchronize()
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats(sort).print_stats(top)
    for line in text.getvalue().splitlines():
        if line.strip() and not line.startswith(("   Ordered", "   List reduced")):
            print(f"  {line.strip()[:150]}")


# The steps the clock times: the engine's functions (module attributes, so calls between them go
# through the clock), the match launch, the update's plan, and the CuPy calls they make.
CLOCKED_ENGINE = ("count_tasks", "uploaded_tasks", "host_heavy_first", "upload", "upload_addresses",
                  "device_batch", "_count_parts", "start_match", "swapped_seeds", "launch_shape",
                  "free_bytes", "_deferred_buffers", "_deadline", "_cost_chunks", "_launch_chunks",
                  "finish_match", "kernel", "grid_blocks", "_pack_heavy_first", "_uploaded_bytes")
CLOCKED_CUPY = ("zeros", "empty", "argsort", "cumsum")


def clocked(spent: dict[str, float], name: str, fn):
    """`fn`, adding the seconds each call takes to spent[name]."""
    def timed(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - t0
    return timed


def step_clock(name: str, run, reps: int) -> None:
    """Median microseconds each clocked step takes per `run()` (callees included), over `reps`."""
    from deltamatch.workers import cuda_backend, triangle_table

    spent: dict[str, float] = defaultdict(float)
    saved = []
    targets = [(engine, f, f) for f in CLOCKED_ENGINE] + [(cp, f, f"cp.{f}") for f in CLOCKED_CUPY]
    targets += [(engine._MatchRun, "launch", "_MatchRun.launch"),
                (cuda_backend, "plan_update", "plan_update"),
                (cuda_backend.GpuGraph, "ensure_vertices", "ensure_vertices"),
                (cuda_backend, "plan_side", "kept triangles: plan_side"),
                (triangle_table.TriangleTable, "queue_deletions", "kept triangles: queue_deletions"),
                (triangle_table.TriangleTable, "queue_insertions", "kept triangles: queue_insertions"),
                (triangle_table.TriangleTable, "settle", "kept triangles: settle (waits)")]
    for owner, attr, label in targets:
        saved.append((owner, attr, getattr(owner, attr)))
        setattr(owner, attr, clocked(spent, label, getattr(owner, attr)))
    per_run: dict[str, list[float]] = defaultdict(list)
    try:
        for _ in range(reps):
            spent.clear()
            cp.cuda.Device().synchronize()
            t0 = time.perf_counter()
            run()
            cp.cuda.Device().synchronize()
            per_run["(wall, synchronized)"].append(time.perf_counter() - t0)
            for step, seconds in spent.items():
                per_run[step].append(seconds)
    finally:
        for owner, attr, fn in saved:
            setattr(owner, attr, fn)
    print(f"step clock {name}: median us per run over {reps}, callees included")
    for step, seconds in sorted(per_run.items(), key=lambda kv: -np.median(kv[1])):
        print(f"  {np.median(seconds) * 1e6:9.1f}  x{len(seconds) / reps:4.1f}  {step}")


def capture(stream, start):
    """(started run, CUDA graph) of `start()` captured on `stream`; None where the capture failed (a
    step that synchronizes, as thrust's sort may), with the capture ended."""
    stream.begin_capture()
    try:
        started = start()
    except Exception as exc:  # the capture's own error, whatever CuPy raises it as
        print(f"  capture failed: {type(exc).__name__}: {str(exc)[:200]}")
        try:
            stream.end_capture()
        except Exception as end_exc:  # an invalidated capture may not end cleanly either
            print(f"  end_capture: {type(end_exc).__name__}: {str(end_exc)[:200]}")
        return None
    return started, stream.end_capture()


def graph_replay(name: str, view, plans, tasks, batch, reps: int) -> None:
    """One count's launches (start_match, the CPU engine's single part) captured as a CUDA graph on a
    stream of their own, then replayed `reps` times: the median wall time of a replay and its
    counters' read, against the same count run by start_match / finish_match on that stream (with
    CuPy's argsort as the chunk order it captured, session 30, H100; the device's order of session
    31 has not been captured on a device)."""
    g, p, b = engine.device_graph(view), engine._plans(plans), engine.device_batch(batch)
    balance = engine.Balance().for_pattern(p.k)
    t, order = engine.uploaded_tasks(g, p, tasks, balance)
    stream = cp.cuda.Stream(non_blocking=True)
    walls = {"start_match + finish_match": [], "graph replay + counters read": []}
    with stream:
        counts = cp.zeros(t.size, dtype=cp.int64)
        start = partial(engine.start_match, g, p, t, b, plans.induced, counts=counts,
                        perm=None if order is None else order.perm, heavy=0 if order is None else order.heavy,
                        balance=balance)
        expected = engine.finish_match(start())
        for _ in range(reps):
            stream.synchronize()
            t0 = time.perf_counter()
            engine.finish_match(start())
            walls["start_match + finish_match"].append(time.perf_counter() - t0)
        stream.synchronize()
        captured = capture(stream, start)
        if captured is None:
            return
        started, graph = captured
        for _ in range(reps):
            stream.synchronize()
            t0 = time.perf_counter()
            graph.launch(stream)
            got = int(started.run.counters.get(stream=stream)[engine.TOTAL])
            walls["graph replay + counters read"].append(time.perf_counter() - t0)
            if got != expected:
                print(f"graph replay {name}: total {got} != {expected}")
                return
    for label, times in walls.items():
        print(f"graph replay {name}: {label} median {np.median(times) * 1e3:.3f} ms, "
              f"min {min(times) * 1e3:.3f} over {reps} (total {expected})")


def switch_ab(name: str, switch: str, run, reps: int) -> None:
    """Median synchronized wall of `run()` with the engine's boolean `switch` on and off, the two
    interleaved run by run, so that both see the same machine."""
    walls: dict[bool, list[float]] = {True: [], False: []}
    saved = getattr(engine, switch)
    try:
        for _ in range(reps):
            for on in (True, False):
                setattr(engine, switch, on)
                cp.cuda.Device().synchronize()
                t0 = time.perf_counter()
                run()
                cp.cuda.Device().synchronize()
                walls[on].append(time.perf_counter() - t0)
    finally:
        setattr(engine, switch, saved)
    on, off = (np.median(walls[x]) * 1e3 for x in (True, False))
    print(f"switch {switch} {name}: on {on:.3f} ms, off {off:.3f} ms (median of {reps}, interleaved)")


def joint_batch(g, plans: dict, tasks: dict, view, ins: np.ndarray, dels: np.ndarray,
                balance: engine.Balance, mark) -> None:
    """One batch as GraphReplica runs a joint one (`replica.joint_sequence`): the insertions, each
    pattern's joint count, the deletions queued behind the last count's launches; `mark(label)` at
    the end of each step."""
    def insertions() -> None:
        g.apply(dels[:0], ins)
        mark("update +I queued")

    def deletions() -> None:
        mark(f"{list(tasks)[-1]} launched")
        g.apply(dels, ins[:0])
        mark("update -D queued")

    def count(name: str, then) -> None:
        engine.count_tasks(g.view(), plans[name], tasks[name], view, plans[name].induced, balance=balance,
                           then=then)
        mark(f"{name} counts read")

    joint_sequence(list(tasks), count, insertions, deletions, queue_deletions=True)


def traced_joint_batch(g, plans: dict, tasks: dict, view, ins: np.ndarray, dels: np.ndarray,
                       runs: dict[str, list], key: str) -> None:
    """`joint_batch`'s steps each under the profiler (`traced`), appended to `runs` under `key`: the
    insertions, each pattern's joint count, the last with the deletions queued behind it."""
    def insertions() -> None:
        runs[f"{key} update +I"].append(traced(partial(g.apply, dels[:0], ins)))

    def count(name: str, then) -> None:
        run = partial(engine.count_tasks, g.view(), plans[name], tasks[name], view, plans[name].induced,
                      then=then)
        runs[f"{key} {name} joint, then -D" if then else f"{key} {name} joint"].append(traced(run))

    joint_sequence(list(tasks), count, insertions, partial(g.apply, dels, ins[:0]), queue_deletions=True)


def pipeline_marks(steps: dict, reps: int, restore=None, title: str = "interleaved", flush=None) -> None:
    """Per step of each `steps[name]()(mark)` (the factory untimed: it may prepare a new batch), the
    runs interleaved name by name, `reps` each (`restore()`, if given, untimed after each; `flush()`,
    if given, untimed before each): the median microseconds from the run's start to the host's
    `mark` and to the device's reaching the CUDA event recorded there; and the median wall of a
    run, synchronized."""
    host: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name in steps}
    device: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name in steps}
    walls: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(reps):
        for name, step in steps.items():
            run = step()
            if flush is not None:
                flush()
            cp.cuda.Device().synchronize()
            points = []
            start = cp.cuda.Event()
            start.record()
            t0 = time.perf_counter()

            def mark(label: str, points=points, t0=t0) -> None:
                event = cp.cuda.Event()
                event.record()
                points.append((label, time.perf_counter() - t0, event))

            run(mark)
            cp.cuda.Device().synchronize()
            walls[name].append(time.perf_counter() - t0)
            for label, seconds, event in points:
                host[name][label].append(seconds * 1e6)
                device[name][label].append(cp.cuda.get_elapsed_time(start, event) * 1e3)
            if restore is not None:
                restore()
    for name in steps:
        print(f"pipeline {name}: wall {np.median(walls[name]) * 1e3:.3f} ms (median of {reps}, {title}); "
              "per step, median us from the start: host / device")
        for label in host[name]:
            print(f"  {np.median(host[name][label]):8.1f} / {np.median(device[name][label]):8.1f}  {label}")


def l2_flush(device_bytes: int = 256 << 20):
    """A callable that overwrites `device_bytes` of device memory (by default several times any
    card's L2), so that the next run finds none of the graph's rows cached."""
    scratch = cp.empty(device_bytes // 4, dtype=cp.int32)
    return partial(scratch.fill, 1)


def switched(step, switch: str, on: bool):
    """`step`, a pipeline factory, with the boolean `switch` of cuda_engine set to `on` first (it
    stays so until the next factory sets it)."""
    def factory():
        setattr(engine, switch, on)
        return step()
    return factory


def joint_inputs(plans: dict, changed: np.ndarray, n_del: int, n: int) -> tuple[dict, object]:
    """A joint batch's tasks (each pattern's removal side, then its addition side) and its device
    view (`DeviceBatch.joint`), for `changed` = the deletions, then the insertions."""
    tasks = {name: batch_tasks(table, changed, n_del, OLD).followed_by(
        batch_tasks(table, changed, n_del, NEW)) for name, table in plans.items()}
    return tasks, device_batch_view(changed, n).joint(n_del)


def deletions_overlap(name: str, count, delete, restore, reps: int) -> None:
    """Median synchronized wall of a joint count and the deletions' update, the update queued behind
    the count's launches (`count_tasks(then=...)`, as the service runs it) and after the count,
    interleaved run by run; `restore()` (untimed) puts the deletions back after each."""
    walls: dict[str, list[float]] = {"queued behind the count": [], "after the count": []}
    for _ in range(reps):
        for label, times in walls.items():
            cp.cuda.Device().synchronize()
            t0 = time.perf_counter()
            if label == "after the count":
                count()
                delete()
            else:
                count(then=delete)
            cp.cuda.Device().synchronize()
            times.append(time.perf_counter() - t0)
            restore()
    print(f"deletions {name}: " + ", ".join(f"{label} {np.median(times) * 1e3:.3f} ms" for label, times
                                            in walls.items()) + f" (median of {reps}, interleaved)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--batches", type=int, default=4, help="the first is reported apart (first use)")
    ap.add_argument("--delete-fraction", type=float, default=0.0)
    ap.add_argument("--patterns", default="4-clique,diamond")
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--host-profile", type=int, default=0, metavar="N",
                    help="then N plain and N cProfiled runs of each pattern's last count")
    ap.add_argument("--profile-sort", default="tottime", choices=("tottime", "cumulative"),
                    help="the cProfile listing's order: own time, or with callees")
    ap.add_argument("--kept-triangles", action="store_true",
                    help="the graph keeps its triangles (as bench_gpu.py's does with the diamond)")
    ap.add_argument("--step-clock", type=int, default=0, metavar="N",
                    help="then N runs of each count and update under the step clock")
    ap.add_argument("--graph-replay", type=int, default=0, metavar="N",
                    help="then each count captured as a CUDA graph and replayed N times")
    ap.add_argument("--ab", default="", metavar="SWITCH[,SWITCH...]",
                    help="then each count's wall with each of these booleans of cuda_engine on and off")
    ap.add_argument("--ab-reps", type=int, default=50)
    ap.add_argument("--pipeline", type=int, default=0, metavar="N",
                    help="with --joint, then the last batch N more times, each step's end on the host "
                    "and on the device")
    ap.add_argument("--pipeline-balances", default="all",
                    help="bench_gpu.py's balances, their runs interleaved")
    ap.add_argument("--pipeline-fresh", action="store_true",
                    help="each --pipeline run a new batch (the edges after those above), as the service "
                    "sees them, instead of the last batch again from G_old")
    ap.add_argument("--pipeline-ab", default="", metavar="SWITCH",
                    help="each --pipeline balance run with this boolean of cuda_engine on and off, "
                    "interleaved (PINNED_UPLOAD, ...); not for a switch whose effect lives in CuPy's "
                    "pool, such as STABLE_SCRATCH: there the on-runs' blocks serve the off-runs too")
    ap.add_argument("--pipeline-flush", action="store_true",
                    help="before each --pipeline run, 256 MiB of device memory overwritten (no row left "
                    "in L2): a repeated batch then reads its rows as a new one would")
    ap.add_argument("--joint", action="store_true",
                    help="with deletions, each batch as a joint count (the service's default): the "
                    "insertions, both sides' tasks in one count a pattern, the deletions queued behind "
                    "the last; the steps below then time the last batch's joint counts")
    args = ap.parse_args()
    if args.batches < 2:
        ap.error("--batches: at least 2 (the first is first use)")
    edges, n, cut, g = loaded_rmat(args.scale)
    g.keep_triangles(args.kept_triangles)
    print(f"rmat:{args.scale}: {edges.shape[0]} edges, {cut} loaded; batches of {args.batch}, "
          f"{args.delete_fraction:.0%} deletions")
    names = args.patterns.split(",")
    plans = shared_plan_tables(names)
    runs: dict[str, list] = defaultdict(list)
    pos, del_pos = cut, 0
    n_del = int(round(args.batch * args.delete_fraction))
    for b in range(args.batches):
        ins = edges[pos : pos + args.batch - n_del]
        dels = edges[del_pos : del_pos + n_del]
        pos += args.batch - n_del
        del_pos += n_del
        changed = np.concatenate([dels, ins])
        key = "first" if b == 0 else "steady"
        if args.joint and n_del:
            # As GraphReplica runs a batch that lists nothing: the insertions, one count of both
            # sides a pattern on G_old ∪ I, the deletions queued behind the last count's launches.
            tasks, view = joint_inputs(plans, changed, n_del, n)
            traced_joint_batch(g, plans, tasks, view, ins, dels, runs, key)
            continue
        view = device_batch_view(changed, n)
        tasks = {name: batch_tasks(plans[name], changed, n_del, NEW) for name in names}
        runs[f"{key} update"].append(traced(partial(g.apply, dels, ins)))
        for name in names:
            count = partial(engine.count_tasks, g.view(), plans[name], tasks[name], view, plans[name].induced)
            runs[f"{key} {name}"].append(traced(count))
    if args.joint and n_del:
        g.apply(edges[:0], dels)  # the last batch's G_old ∪ I again: the steps below count on it
    for title, got in runs.items():
        report(title, got, args.top)
    if args.host_profile:
        for name in names:
            count = partial(engine.count_tasks, g.view(), plans[name], tasks[name], view, plans[name].induced)
            host_profile(name, count, args.host_profile, 2 * args.top, args.profile_sort)
        further = iter(range(2 * args.host_profile))

        def next_update() -> None:
            start = pos + next(further) * args.batch
            g.apply(edges[:0], edges[start : start + args.batch])

        host_profile("update", next_update, args.host_profile, 2 * args.top, args.profile_sort)
        pos += 2 * args.host_profile * args.batch
    if args.step_clock:
        for name in names:
            count = partial(engine.count_tasks, g.view(), plans[name], tasks[name], view, plans[name].induced)
            step_clock(name, count, args.step_clock)
        further = iter(range(args.step_clock))

        def clocked_update() -> None:
            start = pos + next(further) * args.batch
            g.apply(edges[:0], edges[start : start + args.batch])

        step_clock("update", clocked_update, args.step_clock)
        pos += args.step_clock * args.batch
    for switch in filter(None, args.ab.split(",")):
        for name in names:
            count = partial(engine.count_tasks, g.view(), plans[name], tasks[name], view, plans[name].induced)
            switch_ab(name, switch, count, args.ab_reps)
    for name in names if args.graph_replay else []:
        graph_replay(name, g.view(), plans[name], tasks[name], view, args.graph_replay)
    if args.joint and n_del:
        for name in names:
            count = partial(engine.count_tasks, g.view(), plans[name], tasks[name], view, plans[name].induced)
            deletions_overlap(name, count, partial(g.apply, dels, dels[:0]), partial(g.apply, dels[:0], dels),
                              args.ab_reps)
        balances = args.pipeline_balances.split(",")
        flush = l2_flush() if args.pipeline_flush else None
        ab = args.pipeline_ab
        saved = getattr(engine, ab) if ab else None

        def steps(factory) -> dict:
            if not ab:
                return {b: partial(factory, b) for b in balances}
            return {f"{b} {ab}={int(on)}": switched(partial(factory, b), ab, on)
                    for b in balances for on in (True, False)}
        if args.pipeline and not args.pipeline_fresh:
            g.apply(ins, ins[:0])  # G_old: each run below starts there

            def same_batch(balance: str):
                return partial(joint_batch, g, plans, tasks, view, ins, dels, BALANCES[balance])

            pipeline_marks(steps(same_batch), args.pipeline,
                           restore=partial(g.apply, ins, dels), flush=flush,
                           title="the same batch, L2 flushed, interleaved" if flush else "interleaved")
        elif args.pipeline:
            g.apply(dels, ins[:0])  # the last batch done: G_new, and the fresh batches follow it

            def next_batch(balance: str):
                nonlocal pos, del_pos
                fresh_ins = edges[pos : pos + args.batch - n_del]
                fresh_dels = edges[del_pos : del_pos + n_del]
                pos += args.batch - n_del
                del_pos += n_del
                changed_now = np.concatenate([fresh_dels, fresh_ins])
                fresh_tasks, fresh_view = joint_inputs(plans, changed_now, n_del, n)
                return partial(joint_batch, g, plans, fresh_tasks, fresh_view, fresh_ins, fresh_dels,
                               BALANCES[balance])

            pipeline_marks(steps(next_batch), args.pipeline, flush=flush,
                           title=f"each a new batch{', L2 flushed' if flush else ''}, interleaved")
        if ab:
            setattr(engine, ab, saved)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
