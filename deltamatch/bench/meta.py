"""Run metadata recorded in every CSV row: commit, device, date, software versions."""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def commit() -> str:
    """$DM_COMMIT when set (a copy without git history, e.g. on the device machine), else the
    short HEAD of the checkout, '+dirty' when tracked files differ; 'unknown' outside git."""
    if os.environ.get("DM_COMMIT"):
        return os.environ["DM_COMMIT"]
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO_ROOT, text=True,
                              capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO_ROOT,
                               text=True, capture_output=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def cpu_name() -> str:
    """The CPU model from /proc/cpuinfo (else platform.processor())."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def gpu_name() -> str | None:
    """The first CUDA device's name when CuPy sees one (CuPy imported only here, lazily)."""
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
        name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
        return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:  # no CuPy, no driver, no device: all mean "no GPU" here
        return None


def run_metadata(with_gpu: bool) -> dict:
    """The columns every row of a run carries."""
    import numba
    import numpy

    cores = os.cpu_count() or 1
    gpu = gpu_name() if with_gpu else None
    device = f"{cpu_name()} ({cores} cores)" + (f" + {gpu}" if gpu else "")
    now = dt.datetime.now(dt.timezone.utc)
    return {
        "commit": commit(),
        "device": device,
        "gpu": gpu or "",
        "cores": cores,
        "date": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "numba": numba.__version__,
        "argv": " ".join(sys.argv[1:]),
    }
