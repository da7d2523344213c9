"""The API -> scheduler hop alone: a Ray actor call against the scheduler's direct channel.

An asyncio driver (as the API process is) calls a threaded actor shaped like the scheduler
(`max_concurrency` 8, as `make_scheduler_actor` starts it, and 1) with a 100-pair batch, and the
actor answers a small (answer, info) pair after taking a lock, as `Scheduler.apply` does without
the work; then the same method over `scheduler/channel.py`'s socket served by that actor, and on
an async actor (the method a coroutine).  Runs
alternate, each `--calls` round trips; p50/p90/p99 in ms per run and the load average.

    python bench/scheduler_hop.py [--runs 3] [--calls 400]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import threading
import time
from functools import partial
from pathlib import Path

import numpy as np
import ray

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from deltamatch.scheduler.channel import ChannelAddress, ChannelClient, ChannelServer  # noqa: E402


class HopTarget:
    """`apply` answers like the scheduler, without applying anything; `channel` serves it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.server: ChannelServer | None = None

    def apply(self, insert: np.ndarray, delete, batch_id=None) -> tuple[dict, dict]:
        with self.lock:
            start = time.perf_counter()
            answer = {"version": 1, "batch_id": batch_id, "inserted": int(insert.shape[0]),
                      "deleted": 0, "ignored": 0, "deltas": {"1": {"added": 3, "removed": 0, "total": 5}},
                      "elapsed_ms": 0.1}
            return answer, {"stages": {"intake": 0.0}, "scheduler_seconds": time.perf_counter() - start}

    def channel(self) -> ChannelAddress:
        if self.server is None:
            self.server = ChannelServer(lambda method, args: getattr(self, method)(*args), ("apply",))
        return self.server.address


class AsyncHopTarget:
    """The same `apply` as a coroutine: Ray then runs the actor on an asyncio loop (an async actor)."""

    async def apply(self, insert: np.ndarray, delete, batch_id=None) -> tuple[dict, dict]:
        return HopTarget.apply(HopTarget(), insert, delete, batch_id)


async def _time(call, calls: int) -> np.ndarray:
    await call()
    out = np.empty(calls)
    for i in range(calls):
        t0 = time.perf_counter()
        await call()
        out[i] = time.perf_counter() - t0
    return out * 1e3


async def one_run(calls: int) -> dict[str, np.ndarray]:
    batch = np.random.default_rng(0).integers(0, 1 << 20, (100, 2))
    got = {}
    for concurrency in (8, 1):
        actor = ray.remote(HopTarget).options(num_cpus=0, max_concurrency=concurrency).remote()
        ray_call = partial(actor.apply.remote, batch, None)
        got[f"ray, max_concurrency={concurrency}"] = await _time(ray_call, calls)
        if concurrency == 8:
            client = await ChannelClient.connect(await actor.channel.remote())
            got["direct channel"] = await _time(partial(client.call, "apply", batch, None), calls)
            client.close()
        ray.kill(actor)
    actor = ray.remote(AsyncHopTarget).options(num_cpus=0).remote()
    got["ray, async actor"] = await _time(partial(actor.apply.remote, batch, None), calls)
    ray.kill(actor)
    return got


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--calls", type=int, default=400)
    args = ap.parse_args()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    print("| run | path | p50 ms | p90 ms | p99 ms | load |\n|---|---|---|---|---|---|")
    for run in range(args.runs):
        for path, ms in asyncio.run(one_run(args.calls)).items():
            print(f"| {run + 1} | {path} | {np.percentile(ms, 50):.3f} | {np.percentile(ms, 90):.3f} | "
                  f"{np.percentile(ms, 99):.3f} | {os.getloadavg()[0]:.2f} |", flush=True)
    ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
