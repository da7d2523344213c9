"""bench/gpu/nvrtc_registers.py: ptxas's per-kernel report, read from NVRTC's program log."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "gpu"))

from nvrtc_registers import KernelReport, parse_report  # noqa: E402


def test_each_kernel_gets_its_registers_and_its_own_stack_and_spills() -> None:
    log = (
        "ptxas info    : Compiling entry function 'match_shared' for 'sm_90'\n"
        "ptxas info    : Function properties for match_shared\n"
        "    160 bytes stack frame, 356 bytes spill stores, 740 bytes spill loads\n"
        "ptxas info    : Used 56 registers, used 0 barriers, 160 bytes cumulative stack size\n"
        "ptxas info    : Compiling entry function 'match_pieces' for 'sm_90'\n"
        "ptxas info    : Used 40 registers, used 0 barriers, 2304 bytes smem\n"
    )
    assert parse_report(log) == [KernelReport("match_shared", 56, 160, 356),
                                 KernelReport("match_pieces", 40, 0, 0)]
