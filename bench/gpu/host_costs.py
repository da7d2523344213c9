"""What the host spends on each CuPy step a batch's update and count are made of (issue 13: a
RMAT-20 batch of 1,000 is host-bound).  Each step runs `--reps` times back to back on an idle
device; printed: the median host microseconds a step takes to return (a step that waits for the
device says so).

    python bench/gpu/host_costs.py --reps 200
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import cupy as cp  # noqa: E402

from deltamatch.kernels import cuda_engine as engine  # noqa: E402


def many_args_kernel(n_args: int):
    """A kernel of `n_args` pointer arguments that does nothing (what packing the arguments costs)."""
    params = ", ".join(f"const int* a{i}" for i in range(n_args))
    return cp.RawKernel(f'extern "C" __global__ void many({params}) {{}}', "many")


def upload_by_asarray(*arrays):
    """engine.upload without its pinned buffers (PINNED_UPLOAD off)."""
    engine.PINNED_UPLOAD = False
    try:
        return engine.upload(*arrays)
    finally:
        engine.PINNED_UPLOAD = True


def median_us(step, reps: int) -> float:
    """Median host microseconds of `step()` over `reps` runs, the device idle before each."""
    cp.cuda.Device().synchronize()
    step()
    times = []
    for _ in range(reps):
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter_ns()
        step()
        times.append(time.perf_counter_ns() - t0)
    cp.cuda.Device().synchronize()
    return float(np.median(times)) / 1e3


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--reps", type=int, default=200)
    args = ap.parse_args()
    host = np.arange(2048, dtype=np.int32)
    nine = [np.arange(n, dtype=np.int32) for n in (700, 701, 1000, 1001, 701, 701, 700, 700, 700)]
    small = cp.zeros(8, dtype=cp.uint64)
    lengths = cp.arange(3000, dtype=cp.int64)
    items = cp.arange(20000, dtype=cp.int64)
    keys = cp.arange(3000, dtype=cp.int32)[::-1].copy()
    flags = cp.arange(20000) % 7 == 0
    k10, k65 = many_args_kernel(10), many_args_kernel(65)
    balance = engine.Balance()
    ptrs = [cp.zeros(1, dtype=cp.int32) for _ in range(65)]
    pinned = cp.cuda.alloc_pinned_memory(host.nbytes)
    staged = np.frombuffer(pinned, dtype=np.int32, count=host.size)
    out = cp.empty(host.size, dtype=cp.int32)
    steps = {
        "cp.asarray(8 KiB numpy) [upload without PINNED_UPLOAD]": lambda: cp.asarray(host),
        "engine.upload(nine arrays of a batch's plan), PINNED_UPLOAD": lambda: engine.upload(*nine),
        "engine.upload(nine arrays of a batch's plan), asarray": lambda: upload_by_asarray(*nine),
        "engine.upload_addresses(nine arrays), PINNED_UPLOAD": lambda: engine.upload_addresses(*nine),
        "pinned: numpy copy in + memcpyAsync": lambda: (
            np.copyto(staged, host),
            cp.cuda.runtime.memcpyAsync(out.data.ptr, pinned.ptr, host.nbytes,
                                        cp.cuda.runtime.memcpyHostToDevice,
                                        cp.cuda.get_current_stream().ptr)),
        "cp.empty(1,000 int32)": lambda: cp.empty(1000, dtype=cp.int32),
        "cp.zeros(8 uint64)": lambda: cp.zeros(8, dtype=cp.uint64),
        "device slice + view": lambda: small[2:4].view(cp.int32),
        "ndarray over a memory pointer": lambda: cp.ndarray((2,), cp.int32, memptr=small.data + 16),
        "a word's address as an argument (engine.word)": lambda: engine.word(small, 2),
        "Balance.for_pattern(4), memoized": lambda: balance.for_pattern(4),
        "launch, 10 pointer arguments": lambda: k10((1,), (32,), tuple(ptrs[:10])),
        "launch, 65 pointer arguments": lambda: k65((1,), (32,), tuple(ptrs)),
        "8 uint64 .get() [waits]": lambda: small.get(),
        "cp.cumsum(3,000 int64)": lambda: cp.cumsum(lengths),
        "cp.cumsum(20,000 int64)": lambda: cp.cumsum(items),
        "cp.argsort(3,000 int32)": lambda: cp.argsort(keys),
        "cp.flatnonzero(20,000 bool) [waits]": lambda: cp.flatnonzero(flags),
        "engine.free_bytes() [mem_info]": engine.free_bytes,
        "Device().synchronize() idle": lambda: cp.cuda.Device().synchronize(),
        "engine.kernel lookup": lambda: engine.kernel("match.cu", "match_tasks"),
    }
    print(f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}: median host us over {args.reps}")
    for name, step in steps.items():
        print(f"  {median_us(step, args.reps):9.1f}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
