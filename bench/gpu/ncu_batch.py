"""One batch count on the GPU, to run under Nsight Compute (issue 19's utilization figures).

Loads the first 90% of RMAT scale `--scale` into the device graph, inserts the next `--size` edges
and counts the addition side once per `--balance` setting, so that `ncu --kernel-name regex:match_`
profiles exactly those launches (the kernel's own lane-utilization counter is printed beside them):

    ncu --clock-control none --kernel-name regex:match_ --metrics ... python bench/gpu/ncu_batch.py

With `--lineinfo` the builds carry line tables for `ncu --section SourceCounters --import-source
yes`.  Its CUDA-source page printed empty for these reports (session 27: NVRTC compiles match.cu
from a string, which ncu may not find as a file); the SASS page has the stall samples
(bench/gpu/stall_top.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_gpu import BALANCES, balance_note, host_batch_view, loaded_rmat, log, shared_plan_tables, tick  # noqa: E402

from deltamatch.kernels import cuda_engine as engine  # noqa: E402
from deltamatch.scheduler.tasks import NEW, batch_tasks  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--size", type=int, default=1000)
    ap.add_argument("--patterns", default="4-clique,4-cycle")
    ap.add_argument("--balances", default="all,none")
    ap.add_argument("--stats", action=argparse.BooleanOptionalAction, default=False,
                    help="profile match.cu's statistics build (default: the service's build)")
    ap.add_argument("--hub-bits", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--lineinfo", action="store_true",
                    help="builds with source line tables, for ncu's source view (--section SourceCounters)")
    args = ap.parse_args()
    engine.LINEINFO = args.lineinfo
    engine.warm_up(engine.Balance().builds())
    edges, n, cut, g = loaded_rmat(args.scale, hub_bits=args.hub_bits)
    ins = edges[cut : cut + args.size]
    g.apply(np.zeros((0, 2), np.int32), ins)
    view = engine.device_batch(host_batch_view(ins, n))
    for name, plans in shared_plan_tables(args.patterns.split(",")).items():
        tasks = batch_tasks(plans, ins, 0, NEW)
        for balance in args.balances.split(","):
            stats = engine.KernelStats() if args.stats else None
            t = tick()
            counts = engine.count_tasks(g.view(), plans, tasks, view, balance=BALANCES[balance], stats=stats)
            note = f", kernels {stats.kernel_s * 1e3:.2f} ms, {balance_note(stats)}" if stats else ""
            log(f"{name} {balance}: {int(counts.sum())} matches, {(tick() - t) * 1e3:.2f} ms{note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
