"""Every code block of README.md runs as pasted, in order, against a real `deltamatch serve`.

Shell blocks (```sh) run under `bash -e` in the repository root, with the service's port
for 8000 (also as $DELTAMATCH_URL) and this interpreter's bin directory for `.venv/bin/`;
a `# => a…b` line under a command lists fragments its block must print, in order.  Python
blocks (```pycon) run as doctests.  A block preceded by `<!-- not run: why -->` is skipped;
any other block is an error.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", flags=re.S | re.M)
NOT_RUN = re.compile(r"<!-- not run: (.+?) -->\s*$")

pytestmark = pytest.mark.timeout(600)


@dataclass
class Block:
    language: str
    code: str
    line: int
    skip_reason: str | None


def readme_blocks() -> list[Block]:
    text = README.read_text()
    blocks = []
    for m in BLOCK.finditer(text):
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        reason = NOT_RUN.search(before)
        blocks.append(Block(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1,
                            reason.group(1) if reason else None))
    return blocks


def _localize(code: str, port: int) -> str:
    code = re.sub(r"(localhost|127\.0\.0\.1):8000", f"127.0.0.1:{port}", code)
    return code.replace(".venv/bin/", f"{Path(sys.executable).parent}/")


def _expected(code: str) -> list[str]:
    return [frag for line in code.splitlines() if line.startswith("# => ")
            for frag in line[len("# => "):].split("…") if frag]


def _run_shell(block: Block, port: int) -> None:
    out = subprocess.run(["bash", "-e", "-c", _localize(block.code, port)], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    where = f"README.md:{block.line}"
    assert out.returncode == 0, f"{where} failed ({out.returncode}):\n{out.stdout}\n{out.stderr}"
    at = 0
    for fragment in _expected(block.code):
        found = out.stdout.find(fragment, at)
        assert found >= 0, f"{where}: {fragment!r} not printed (after offset {at}):\n{out.stdout}"
        at = found + len(fragment)


def _run_doctest(block: Block, port: int) -> None:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(_localize(block.code, port), {}, f"README.md:{block.line}", str(README),
                              block.line)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0, f"README.md:{block.line}: doctest failed"


def test_every_block_is_run_or_says_why_not():
    blocks = readme_blocks()
    assert len(blocks) >= 8
    for b in blocks:
        assert b.skip_reason or b.language in ("sh", "pycon"), f"README.md:{b.line}: ```{b.language} block"


def test_every_gpu_switch_is_in_the_configuration_table():
    """Each DELTAMATCH_GPU_* variable the GPU worker reads has a row of README's configuration table."""
    source = (ROOT / "deltamatch" / "workers" / "cuda_backend.py").read_text()
    read = set(re.findall(r'"(DELTAMATCH_GPU_[A-Z0-9_]+)"', source))
    rows = set(re.findall(r"^\| `(DELTAMATCH_GPU_[A-Z0-9_]+)`", README.read_text(), flags=re.M))
    assert len(read) > 20 and read <= rows, sorted(read - rows)


def test_quick_start_targets_exist():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^run: .*\n\t\$\(BIN\)/deltamatch serve$", makefile, flags=re.M)
    assert re.search(r"^test: .*\n(\t.*\n)*\t\$\(BIN\)/python -m pytest -q tests$", makefile, flags=re.M)


def test_every_block_runs_in_order(make_service, data_dir, monkeypatch):
    svc = make_service(DELTAMATCH_KEEPALIVE="1")
    svc.start()
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("DELTAMATCH_URL", svc.url)  # the CLI's default service address
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    ran = 0
    for block in readme_blocks():
        if block.skip_reason:
            continue
        (_run_shell if block.language == "sh" else _run_doctest)(block, svc.port)
        ran += 1
    assert ran >= 6
