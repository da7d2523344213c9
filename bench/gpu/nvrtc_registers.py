"""The registers and spills NVRTC gives the match kernels, without a GPU.

A launch holds as many warps an SM as its kernel's registers allow (`cuda_engine.resident_blocks`),
and what counts is what the device's compiler gives: nvcc here and NVRTC there fit the same source
differently (session 39: `match_shared` in 64 registers here, 72 on an H200).  NVRTC is a library,
so any version runs here: session 40's H100s (CuPy 14.2, NVRTC 13.0) gave exactly what NVRTC
13.0.88 gives here (62, 66 and 61 registers for `match_tasks`, `match_shared` and `match_memo`).
This compiles each `--build` of the match units (its defines, `Balance.defines`; default: the
default build) as `cuda_engine.module` does (its options and CuPy's own `-ftz=true`), with
`-Xptxas -v`, and prints ptxas's report per kernel.  `--nvrtc` is the library, e.g. from the wheel
of the device's NVRTC:

    pip download --no-deps nvidia-cuda-nvrtc==13.0.88 -d /tmp/nvrtc
    unzip -q -o /tmp/nvrtc/*.whl -d /tmp/nvrtc
    python bench/gpu/nvrtc_registers.py --nvrtc /tmp/nvrtc/nvidia/cu13/lib/libnvrtc.so.13 \
        --build "" --build "DM_WARPS_PER_SM=36"
"""

from __future__ import annotations

import argparse
import ctypes
import re
import sys
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from deltamatch.kernels import cuda_engine as engine  # noqa: E402

CUPY_OPTIONS = ("-ftz=true",)  # what CuPy's compile adds to a RawModule's options


class KernelReport(NamedTuple):
    """ptxas's report of one kernel: registers a thread, stack frame and spill stores (bytes)."""

    function: str
    registers: int
    stack: int
    spill_stores: int


def parse_report(log: str) -> list[KernelReport]:
    """The kernels of a `-Xptxas -v` log, in its order."""
    out, function, frame = [], None, (0, 0)
    for line in log.splitlines():
        if m := re.search(r"Compiling entry function '(\w+)'", line):
            function = m.group(1)
        elif m := re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores", line):
            frame = (int(m.group(1)), int(m.group(2)))
        elif (m := re.search(r"Used (\d+) registers", line)) and function is not None:
            out.append(KernelReport(function, int(m.group(1)), *frame))
            function, frame = None, (0, 0)
    return out


def compile_log(nvrtc: ctypes.CDLL, source: Path, options: tuple[str, ...]) -> str:
    """NVRTC's program log of `source` compiled with `options` (raises with the log on failure)."""
    program = ctypes.c_void_p()
    nvrtc.nvrtcCreateProgram(ctypes.byref(program), source.read_bytes(), source.name.encode(), 0, None, None)
    encoded = [o.encode() for o in options]
    status = nvrtc.nvrtcCompileProgram(program, len(encoded), (ctypes.c_char_p * len(encoded))(*encoded))
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(program, log)
    nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
    if status != 0:
        raise RuntimeError(f"NVRTC could not compile {source.name}:\n{log.value.decode()}")
    return log.value.decode()


def version(nvrtc: ctypes.CDLL) -> str:
    major, minor = ctypes.c_int(), ctypes.c_int()
    nvrtc.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    return f"{major.value}.{minor.value}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nvrtc", required=True, help="the NVRTC library (libnvrtc.so.N) to compile with")
    ap.add_argument("--build", action="append", default=None,
                    help="a build's defines, NAME=VALUE space-separated (repeatable; default: the default)")
    ap.add_argument("--arch", default="90", help="compute capability (default 90: H100, H200)")
    args = ap.parse_args()
    nvrtc = ctypes.CDLL(args.nvrtc)
    print(f"NVRTC {version(nvrtc)} ({args.nvrtc})")
    for build in args.build or [" ".join(engine.Balance().defines())]:
        options = (engine.compile_options(args.arch) + CUPY_OPTIONS + ("-Xptxas", "-v")
                   + tuple(f"-D{d}" for d in build.split()))
        for unit in engine.MATCH_UNITS:
            for k in parse_report(compile_log(nvrtc, engine.KERNEL_DIR / unit, options)):
                print(f"[{build or 'default'}] {k.function}: {k.registers} registers, {k.stack} B stack, "
                      f"{k.spill_stores} B spill stores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
