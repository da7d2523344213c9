"""The CPU engine against a clock: a count run in a child process and stopped at a time limit.

A benchmark that sets the CPU engine beside a much faster engine cannot always wait for it: the
house's RMAT-20 batch of 1,000 edges takes the CPU engine 135 s on 16 threads, and a batch of
10^4, if it grows as the GPU's did (9.2x), about 20 minutes (not measured): past what one device
call may run.  Stopped at a limit, the
run still measures something exact: the CPU engine takes longer than the limit, so its ratio to
the faster engine is at least limit / that engine's time.

The count runs in a spawned process (numba's threads cannot be stopped from Python) and is
timed there.  The child first counts a warm-up task list of the same types (so numba's code is
loaded, or compiled, before the clock starts), then tells the parent it starts; the parent waits
at most the limit from then and kills the child past it.  Neither the start of the process nor
the transfer of the graph is in the time.
"""

from __future__ import annotations

import multiprocessing
import time
from multiprocessing.connection import Connection
from typing import NamedTuple

import numpy as np

from deltamatch.kernels.plan_table import BatchView, GraphView, PlanTable, TaskList

# Seconds the child may take to start, receive its input and warm up (numba compiling cold
# takes about 100 s; loading from its cache, a few).
STARTUP_S = 600.0


class BoundedCount(NamedTuple):
    """The per-task counts and the seconds they took, or, when the run was stopped at its limit,
    counts None and seconds = the limit (a lower bound on the run's time)."""

    counts: np.ndarray | None
    seconds: float

    @property
    def stopped(self) -> bool:
        return self.counts is None


def _warm_up_tasks(graph: GraphView, tasks: TaskList, copies: int) -> TaskList:
    """`copies` of the task whose seed has the fewest neighbours (the cheapest to run, most
    likely), so that a count of them takes the parallel path at little cost."""
    if tasks.size == 0:
        return tasks
    cheapest = int(np.argmin(graph.degree[tasks.u].astype(np.int64) + graph.degree[tasks.v]))
    return TaskList(*(np.repeat(column[cheapest : cheapest + 1], copies) for column in tasks))


def _count_in_child(conn: Connection) -> None:
    from deltamatch.kernels import cpu_engine

    graph, plans, tasks, batch, check_other = conn.recv()
    for copies in (1, cpu_engine.PARALLEL_MIN_TASKS):  # the serial and the parallel path
        cpu_engine.count_tasks(graph, plans, _warm_up_tasks(graph, tasks, copies), batch, check_other)
    conn.send("start")
    start = time.perf_counter()
    counts = cpu_engine.count_tasks(graph, plans, tasks, batch, check_other)
    conn.send((counts, time.perf_counter() - start))


def count_within(graph: GraphView, plans: PlanTable, tasks: TaskList, batch: BatchView,
                 check_other: bool = False, *, limit_s: float) -> BoundedCount:
    """`cpu_engine.count_tasks` of these arguments, on all of numba's threads in a child process,
    stopped once it has counted for `limit_s` seconds (module docstring).  Raises RuntimeError
    when the child fails or does not start counting within STARTUP_S."""
    ctx = multiprocessing.get_context("spawn")
    ours, theirs = ctx.Pipe()
    child = ctx.Process(target=_count_in_child, args=(theirs,), daemon=True)
    child.start()
    theirs.close()
    try:
        ours.send((graph, plans, tasks, batch, check_other))
        if not ours.poll(STARTUP_S):
            raise RuntimeError(f"the CPU engine's process did not start counting within {STARTUP_S:.0f} s")
        ours.recv()
        if not ours.poll(limit_s):
            return BoundedCount(None, limit_s)
        counts, seconds = ours.recv()
        return BoundedCount(counts, seconds)
    except (EOFError, BrokenPipeError, ConnectionResetError):
        child.join(5)
        raise RuntimeError(f"the CPU engine's process ended early (exit code {child.exitcode})") from None
    finally:
        child.kill()
        child.join()
        ours.close()
