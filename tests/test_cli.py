"""`deltamatch` itself: --version, and one-line errors (no traceback) from every subcommand."""

from __future__ import annotations

import subprocess
import sys

import pytest

import deltamatch


def _run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "deltamatch.cli", *argv], capture_output=True, text=True,
                          timeout=120)


def test_version():
    out = _run("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"deltamatch {deltamatch.__version__}"


DEAD = "http://127.0.0.1:9"
BAD_CALLS = {
    "count-missing-file": (("count", "/nonexistent/g.txt", "triangle"), "cannot read"),
    "count-bad-pattern": (("count", "rmat:4", "pentagon"), "unknown pattern name"),
    "replay-missing-file": (("replay", "/nonexistent/g.txt", "--pattern", "triangle"), "cannot read"),
    "load-missing-file": (("load", "rmat.txt", "--url", DEAD), "cannot read"),
    "replay-dead-url": (("replay", "rmat:6", "--pattern", "triangle", "--url", DEAD), "cannot reach"),
}


@pytest.mark.parametrize("case", sorted(BAD_CALLS))
def test_errors_are_one_line(case):
    argv, needle = BAD_CALLS[case]
    out = _run(*argv)
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.returncode != 0 and len(lines) == 1 and needle in lines[0], out.stderr


def test_load_to_a_dead_url_is_one_line(tmp_path):
    f = tmp_path / "g.txt"
    f.write_text("1 2\n")
    out = _run("load", str(f), "--url", "http://127.0.0.1:9")
    assert out.returncode == 1 and out.stderr.strip().count("\n") == 0
    assert "cannot reach the service at http://127.0.0.1:9" in out.stderr
