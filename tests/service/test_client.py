"""The Python client and `deltamatch load` against the shared real service."""

from __future__ import annotations

import argparse
import json

import pytest

from deltamatch.commands import load
from deltamatch.service.client import DeltamatchClient, DeltamatchError, _parse_sse

pytestmark = pytest.mark.timeout(120)


def test_sse_parser_joins_data_lines_and_skips_comments():
    lines = [": keep-alive", "", "id: 3", "event: delta", "data: {\"a\":", "data: 1}", "", "retry: 5", ""]
    assert list(_parse_sse(iter(lines))) == [("delta", "3", '{"a":\n1}')]


def test_errors_carry_status_and_detail(client):
    with pytest.raises(DeltamatchError) as err:
        client.update(insert=[[1, 1]])
    assert err.value.status == 422 and "self-loop" in err.value.detail


def test_load_file_uploads_an_edge_file(client, mirror, tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("# a triangle\n300 301\n301 302\n302 300\n")
    answer = client.load_file(str(path))
    mirror.apply(answer, [(300, 301), (301, 302), (300, 302)])
    assert answer["inserted"] == 3 and client.cluster()["graph"]["edges"] == len(mirror.edges)


def test_load_command_sends_chunks(service, client, mirror, token, tmp_path, monkeypatch, capsys):
    path = tmp_path / "g.txt"
    path.write_text("400 401\n401 402\n402 403\n403 400\n")
    monkeypatch.setenv("DELTAMATCH_TOKEN", token)
    parser = argparse.ArgumentParser()
    load.add_arguments(parser)
    version = client.cluster()["graph"]["version"]
    assert load.run(parser.parse_args([str(path), "--url", service.url, "--batch", "3", "--json"])) == 0
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert [a["version"] for a in answers] == [version + 1, version + 2]  # 4 edges in chunks of 3
    for answer, chunk in zip(answers, ([(400, 401), (401, 402), (402, 403)], [(403, 400)]), strict=True):
        assert answer["inserted"] == len(chunk)
        mirror.apply(answer, chunk)
    assert client.cluster()["graph"]["edges"] == len(mirror.edges)


def test_load_command_reports_a_bad_file(tmp_path, capsys):
    path = tmp_path / "bad.txt"
    path.write_text("1 2\nx y\n")
    parser = argparse.ArgumentParser()
    load.add_arguments(parser)
    assert load.run(parser.parse_args([str(path), "--url", "http://127.0.0.1:9"])) == 2
    assert "bad.txt" in capsys.readouterr().err


def test_deltas_reports_an_unknown_pattern(service):
    with DeltamatchClient(service.url) as c, pytest.raises(DeltamatchError) as err:
        next(iter(c.deltas(424242)))
    assert err.value.status == 404
