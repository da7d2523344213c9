"""Every CUDA source compiles for sm_90 with nvcc, without register spills but in the one build
allowed them (no GPU needed)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

KERNEL_DIR = Path(__file__).resolve().parents[2] / "deltamatch" / "kernels"
SOURCES = sorted(KERNEL_DIR.glob("*.cu"))

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


# Each build a source is compiled in (cuda_engine.module): the match units (match.cu, match_memo.cu)
# with and without statistics, without the pair loop's window, without a matched hub's bitmap
# first, without the batch's pair table, with a pair list's checks made per pair, walking base
# sets whatever their length, with every changed-pair lookup made, reading a set's next candidates
# early, with the lookups staged (the default is 28 warps an SM; statistics builds keep 24), and at
# 24, 32 and 36 warps an SM.
MATCH_BUILDS = ["", "-DDM_STATS=1", "-DDM_PAIR_WINDOW=0", "-DDM_PAIR_WINDOW=0 -DDM_STATS=1",
                "-DDM_HUB_FIRST=0", "-DDM_PAIR_HASH=0", "-DDM_PAIR_HASH=0 -DDM_STATS=1", "-DDM_LIST_CHECKS=0",
                "-DDM_DRIVE_SHORT=0", "-DDM_RANKED_TOUCHED=0", "-DDM_PREFETCH_NEXT=1",
                "-DDM_STAGED_LOOKUPS=1",
                "-DDM_WARPS_PER_BLOCK=8 -DDM_WARPS_PER_SM=24", "-DDM_WARPS_PER_BLOCK=8 -DDM_WARPS_PER_SM=32",
                "-DDM_WARPS_PER_SM=36"]
# The builds allowed to spill, and how much: Balance.warps_per_sm = 32 caps match_tasks,
# match_shared and match_memo at 64 registers, where they spill (12, 248 and 52 bytes of stores,
# nvcc 13 here, session 38), and 36 at 56 (320, 340 and 428 bytes of stores, up to 740 of loads,
# session 40); both are opt-in, and session 37 measured a spilling cap faster on the device all the
# same (Balance's docstring).
SPILL_BYTES_ALLOWED = {"-DDM_WARPS_PER_BLOCK=8 -DDM_WARPS_PER_SM=32": 384, "-DDM_WARPS_PER_SM=36": 768}
BUILDS = [(source, define) for source in SOURCES
          for define in (MATCH_BUILDS if source.name in ("match.cu", "match_memo.cu") else [""])]


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[Path, str], subprocess.CompletedProcess]:
    """Every build's nvcc run (its resource report on stderr), a core each at a time: nvcc compiles
    one source on one core, and match.cu's builds are most of this module's time (all started at
    once, 26 builds on CI's two cores each took the whole run and passed a per-build limit).  Device
    code only (`-cubin`, as NVRTC builds it): the host pass would add a seventh to each build."""
    out = tmp_path_factory.mktemp("builds")

    def build(i: int, source: Path, define: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["nvcc", "-std=c++17", "-arch=sm_90", "-Xptxas", "-v", *define.split(), "-cubin", str(source),
             "-o", str(out / f"{source.stem}{i}.cubin")],
            capture_output=True, text=True, timeout=300)

    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        running = {key: pool.submit(build, i, *key) for i, key in enumerate(BUILDS)}
        return {key: job.result() for key, job in running.items()}


def test_there_are_sources() -> None:
    assert {p.name for p in SOURCES} >= {"match.cu", "graph.cu"}


@pytest.mark.parametrize(("source", "define"), BUILDS, ids=[f"{s.name}{d}" for s, d in BUILDS])
def test_compiles_without_spills_but_where_allowed(source: Path, define: str, reports: dict) -> None:
    result = reports[(source, define)]
    assert result.returncode == 0, f"{source.name} failed to compile:\n{result.stderr}"
    report = result.stderr
    spills = [int(n) for n in re.findall(r"(\d+) bytes spill (?:stores|loads)", report)]
    assert spills, f"no resource report for {source.name}:\n{report}"
    assert max(spills) <= SPILL_BYTES_ALLOWED.get(define, 0), f"{source.name} spills registers:\n{report}"


def test_the_default_build_fits_32_warps_an_sm(reports: dict) -> None:
    """The default build (Balance.warps_per_sm = 28) caps match_tasks, match_shared and match_memo
    at 72 registers, but nvcc here fits them in 64, so that an SM holds 32 warps of them (the host
    sizes launches by what they use; NVRTC on the device gives match_shared 66-72, sessions 39-40)."""
    build = ""
    report = "".join(reports[(KERNEL_DIR / unit, build)].stderr for unit in ("match.cu", "match_memo.cu"))
    entry = r"Compiling entry function '(match_tasks|match_shared|match_memo)'.*?Used (\d+) registers"
    used = dict(re.findall(entry, report, re.DOTALL))
    assert set(used) == {"match_tasks", "match_shared", "match_memo"}
    assert max(int(n) for n in used.values()) <= 64, used
