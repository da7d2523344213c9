"""docs/BENCHMARKS.md and the crossover lines come from the CSVs."""

from __future__ import annotations

import csv

from deltamatch.bench.report import BENCHMARKS_PAGE, crossover_lines, main, page
from deltamatch.bench.suite import COLUMNS


def _row(**kw) -> dict:
    base = dict.fromkeys(COLUMNS, "")
    base.update(run_id="sweep-x", mode="sweep", graph="rmat", V="10", E="100", max_degree="9",
                pattern="triangle", induced="False", batch_size="1000", delete_fraction="0",
                load_fraction="0.9", workers="1", status="ok", agree="yes", batches_run="3", commit="abc",
                device="cpu", date="d", argv="--sweep", loadavg="1.0")
    base.update(kw)
    return base


def _sweep() -> list[dict]:
    rows = []
    for scale, gpu, cpu in ((10, 50.0, 100.0), (11, 150.0, 120.0)):
        rows.append(_row(scale=str(scale), E=str(scale * 100), engine="gpu", updates_per_s=str(gpu)))
        rows.append(_row(scale=str(scale), E=str(scale * 100), engine="cpu-all", updates_per_s=str(cpu)))
    return rows


def test_crossover_is_the_first_scale_where_the_gpu_wins():
    gpu, cpu = crossover_lines(_sweep())
    assert "not measured" in cpu
    line = gpu
    assert "scale 11" in line and "E=1,100" in line and "150 vs 120" in line


def test_page_tables_come_from_the_csvs(tmp_path):
    with open(tmp_path / "sweep-x.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(_sweep())
    text = page(tmp_path)
    assert text.startswith("# Benchmarks\n")
    assert "**`sweep-x.csv`**" in text and "| rmat | 10 | 1,000 |" in text and "crossover" in text


def test_write_puts_the_page_where_asked(tmp_path):
    target = tmp_path / "BENCHMARKS.md"
    assert main(["--results", str(tmp_path), "--write", str(target)]) == 0
    assert target.read_text() == page(tmp_path)


def test_committed_page_is_the_generated_one():
    assert BENCHMARKS_PAGE.read_text() == page()


def test_replay_tables_come_from_replay_csvs_at_any_depth(tmp_path):
    fields = ["date", "commit", "machine", "graph", "vertices", "edges", "max_degree", "pattern", "threads",
              "hoist", "batch", "batches", "total", "static_seconds", "batch_p50_seconds",
              "batch_mean_seconds", "updates_per_second", "recount_mean_seconds", "recount_equal",
              "speedup_vs_recount"]
    run = dict(date="d", commit="abc", machine="16-core CPU", graph="rmat:18:4", vertices="9", edges="20",
               max_degree="5", pattern="house", hoist="True", batch="1000")
    (tmp_path / "host").mkdir()
    with open(tmp_path / "host" / "cpu-replay-x.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, restval="")
        w.writeheader()
        w.writerow(dict(run, threads="16", batches="2", total="1234567", static_seconds="30",
                        batch_p50_seconds="2", batch_mean_seconds="2.5", updates_per_second="400",
                        recount_mean_seconds="25", recount_equal="True", speedup_vs_recount="10"))
        w.writerow(dict(run, threads="1", batches="timeout 300s"))
    text = page(tmp_path)
    assert "host/cpu-replay-x.csv" in text and "1,234,567" in text and "10×" in text
    assert "| house | True | 1 | timeout 300s |" in text
