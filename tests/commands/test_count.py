"""`deltamatch count`: published triangle counts of real graphs, JSON output, bad arguments."""

from __future__ import annotations

import argparse
import json

import networkx as nx
import numba
import numpy as np
import pytest

from deltamatch.commands import count

PUBLISHED_TRIANGLES = {
    "ca-GrQc.txt.gz": 48_260,
    "ca-HepTh.txt.gz": 28_339,
    "ca-HepPh.txt.gz": 3_358_499,
    "facebook_combined.txt.gz": 1_612_010,
    "email-Enron.txt.gz": 727_044,
    "wiki-Vote.txt.gz": 608_389,
    "citeseer.txt.gz": 1_166,
}


def _count(capsys, *argv: str) -> tuple[int, dict | str]:
    parser = argparse.ArgumentParser()
    count.add_arguments(parser)
    rc = count.run(parser.parse_args(list(argv)))
    captured = capsys.readouterr()
    return rc, (json.loads(captured.out) if rc == 0 and "--json" in argv else captured.out + captured.err)


@pytest.mark.parametrize("name, triangles", PUBLISHED_TRIANGLES.items())
def test_published_triangle_counts(capsys, data_dir, name, triangles):
    rc, out = _count(capsys, str(data_dir / name), "triangle", "--json", "--workers", "2")
    assert rc == 0 and out["total"] == triangles


@pytest.mark.parametrize(
    "graph, triangles",
    [(nx.karate_club_graph(), 45), (nx.les_miserables_graph(), 467)],
    ids=["karate", "lesmis"],
)
def test_networkx_graphs_published_triangles(capsys, tmp_path, graph, triangles):
    g = nx.convert_node_labels_to_integers(graph)
    f = tmp_path / "g.npy"
    np.save(f, np.array(list(g.edges), dtype=np.int64))
    rc, out = _count(capsys, str(f), "0-1,1-2,2-0", "--json")
    assert rc == 0 and out["total"] == triangles


def test_rmat_source_and_text_output(capsys):
    rc, out = _count(capsys, "rmat:8:4:3", "diamond", "--threads", "1")
    assert rc == 0 and "diamond:" in out and "matches in rmat:8:4:3" in out


def test_no_hoist_counts_the_same(capsys):
    _, hoisted = _count(capsys, "rmat:8:4:3", "house", "--json")
    _, greedy = _count(capsys, "rmat:8:4:3", "house", "--json", "--no-hoist")
    assert hoisted["hoist"] and not greedy["hoist"] and hoisted["total"] == greedy["total"] > 0


@pytest.mark.parametrize(
    "argv, message",
    [
        (["rmat:x", "triangle"], "rmat:SCALE"),
        (["rmat:0", "triangle"], "scale must be"),
        (["nowhere.txt", "triangle"], "cannot read"),
        (["rmat:6", "pentagon"], "unknown pattern name"),
        (["rmat:6", "0-1,2-3"], "disconnected"),
        (["rmat:6", "triangle", "--workers", "0"], "--workers"),
        (["rmat:6", "triangle", "--threads", "0"], "--threads"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(capsys, argv, message):
    rc, out = _count(capsys, *argv)
    assert rc == 2 and message in out


def test_names_in_a_csv_with_header_columns(capsys, tmp_path):
    f = tmp_path / "payments.csv"
    f.write_text('id,from,to\n1,"Smith, Ann",bob\n2,bob,cy\n3,cy,"Smith, Ann"\n')
    rc, out = _count(capsys, str(f), "triangle", "--columns", "from,to", "--json", "--backend", "cpu")
    assert rc == 0 and out["total"] == 1 and out["backend"] == "cpu"


def test_unavailable_backend_is_one_line(capsys, monkeypatch):
    def no_gpu(kind):
        raise RuntimeError("no CUDA device is visible")

    monkeypatch.setattr("deltamatch.workers.replica.make_backend", no_gpu)
    rc, out = _count(capsys, "rmat:6", "triangle", "--backend", "cuda")
    expected = "deltamatch count: --backend cuda: RuntimeError: no CUDA device is visible"
    assert rc == 2 and out.strip() == expected


def test_compiling_is_announced_once_and_only_when_it_happens(capsys):
    with count.compile_notice():
        assert numba.njit(lambda x: x + 1)(1) == 2
        assert numba.njit(lambda x: x * 2)(2) == 4
    assert capsys.readouterr().err == "compiling kernels (first run only) ...\n"
    compiled = numba.njit(lambda x: x - 1)
    compiled(1)
    with count.compile_notice():
        assert compiled(5) == 4
    assert capsys.readouterr().err == ""
