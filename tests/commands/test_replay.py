"""`deltamatch replay`: per-batch lines whose totals equal a recount, deletions, bad arguments."""

from __future__ import annotations

import argparse
import json

import numba
import numpy as np
import pytest

from deltamatch.commands import replay
from deltamatch.kernels.reference import reference_matches
from deltamatch.scheduler.patterns import BUILTIN_PATTERNS


def _replay(capsys, *argv: str) -> tuple[int, list[dict], str]:
    parser = argparse.ArgumentParser()
    replay.add_arguments(parser)
    rc = replay.run(parser.parse_args(list(argv)))
    captured = capsys.readouterr()
    rows = [json.loads(x) for x in captured.out.splitlines()] if "--json" in argv else []
    return rc, rows, captured.out + captured.err


@pytest.fixture
def small_file(tmp_path):
    rng = np.random.default_rng(5)
    pairs = rng.integers(0, 30, size=(260, 2))
    f = tmp_path / "g.txt"
    f.write_text("# random\n" + "".join(f"{u} {v} {t}\n" for t, (u, v) in enumerate(pairs)))
    return f


def test_json_lines_track_the_stream_and_recount(capsys, small_file):
    rc, rows, _ = _replay(
        capsys,
        str(small_file),
        "--pattern",
        "4-cycle",
        "--batch",
        "7",
        "--json",
        "--recount",
        "--load-fraction",
        "0.5",
    )
    assert rc == 0 and len(rows) > 5
    assert [r["version"] for r in rows] == list(range(rows[0]["version"], rows[0]["version"] + len(rows)))
    for r in rows:
        assert {"version", "added", "removed", "total", "seconds"} <= r.keys()
        assert r["total"] == r["recount"]


def test_deletions_and_final_total_equal_reference(capsys, small_file):
    rc, rows, _ = _replay(
        capsys,
        str(small_file),
        "--pattern",
        "diamond",
        "--batch",
        "10",
        "--json",
        "--delete-fraction",
        "0.5",
        "--shuffle",
        "3",
        "--workers",
        "2",
        "--recount",
    )
    assert rc == 0
    assert sum(r["deleted"] for r in rows) == 5 * len(rows)
    assert all(r["total"] == r["recount"] for r in rows)


def test_hoisting_ablation_and_count_threads_keep_the_totals(capsys, small_file):
    """--no-hoist (greedy plans) and --count-threads (recounts on another thread count) change no number."""
    argv = (str(small_file), "--pattern", "house", "--batch", "20", "--json", "--load-fraction", "0.3",
            "--recount", "--threads", "1")
    _, hoisted, _ = _replay(capsys, *argv)
    all_threads = str(numba.config.NUMBA_NUM_THREADS)
    rc, greedy, _ = _replay(capsys, *argv, "--no-hoist", "--count-threads", all_threads)
    strip = [{k: r[k] for k in ("version", "added", "removed", "total", "recount")} for r in hoisted]
    assert rc == 0 and strip == [{k: r[k] for k in strip[0]} for r in greedy]
    assert all(r["total"] == r["recount"] for r in greedy)


def test_text_output_and_max_batches(capsys, small_file):
    rc, _, out = _replay(
        capsys, str(small_file), "--pattern", "triangle", "--batch", "5", "--max-batches", "2"
    )
    assert rc == 0 and out.count("added") == 2 and "updates/s" in out


def test_total_after_full_replay_is_the_reference_count(capsys, small_file):
    rc, rows, _ = _replay(
        capsys,
        str(small_file),
        "--pattern",
        "tailed-triangle",
        "--induced",
        "--batch",
        "50",
        "--json",
        "--load-fraction",
        "0.2",
    )
    edges = {
        (min(u, v), max(u, v))
        for u, v, _ in (map(int, line.split()) for line in small_file.read_text().splitlines()[1:])
        if u != v
    }
    want = reference_matches(edges, BUILTIN_PATTERNS["tailed-triangle"], 4, induced=True)
    assert rc == 0 and rows[-1]["total"] == len(want)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--load-fraction", "1.5"], "--load-fraction"),
        (["--batch", "0"], "--batch"),
        (["--delete-fraction", "-1"], "--delete-fraction"),
        (["--url", "http://127.0.0.1:9", "--recount"], "--recount"),
        (["--url", "http://127.0.0.1:9", "--no-hoist"], "--no-hoist"),
        (["--count-threads", "0"], "--count-threads"),
    ],
)
def test_bad_options_exit_2(capsys, small_file, argv, message):
    rc, _, out = _replay(capsys, str(small_file), "--pattern", "triangle", *argv)
    assert rc == 2 and message in out
