"""Plots drawn from CSVs: the GPU benchmark's speedups and batch times (the suite's plots are tested
with the suite)."""

from __future__ import annotations

import csv
from pathlib import Path

from deltamatch.bench.plots import gpu_batch_time_plot, gpu_batch_times, gpu_speedup_plot, gpu_speedups

COLUMNS = ["scale", "pattern", "phase", "batch_size", "gpu_s", "cpu_s", "note"]


def write_bench_csv(path: Path, rows: list[dict]) -> Path:
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_gpu_speedups_per_scale_and_deletion_setting_are_drawn(tmp_path: Path) -> None:
    inserts = write_bench_csv(tmp_path / "inserts.csv", [
        {"scale": 20, "pattern": "diamond", "phase": "batch", "batch_size": 1000, "gpu_s": 0.01, "cpu_s": 0.1,
         "note": "deleted 0 kernel_s 0.0"},
        {"scale": 20, "pattern": "diamond", "phase": "batch_kept", "batch_size": 1000, "gpu_s": 0.001,
         "cpu_s": 0.1, "note": ""},
        {"scale": 20, "pattern": "house", "phase": "batch", "batch_size": 1000, "gpu_s": "", "cpu_s": "",
         "note": "over 10 s"},
        {"scale": 20, "pattern": "diamond", "phase": "static", "batch_size": "", "gpu_s": 0.02, "cpu_s": "",
         "note": ""},
    ])
    deletes = write_bench_csv(tmp_path / "deletes.csv", [
        {"scale": 20, "pattern": "4-cycle", "phase": "batch", "batch_size": 1000, "gpu_s": 0.02, "cpu_s": 0.2,
         "note": "deleted 100 kernel_s 0.0"},
    ])
    assert gpu_speedups([inserts, deletes]) == {
        (20, False): {("diamond", 1000): 10.0, ("diamond (kept)", 1000): 100.0},
        (20, True): {("4-cycle", 1000): 10.0},
    }
    out = gpu_speedup_plot([inserts, deletes], tmp_path / "speedup.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_gpu_batch_times_per_pattern_and_scale_are_drawn(tmp_path: Path) -> None:
    small = write_bench_csv(tmp_path / "small.csv", [
        {"scale": 20, "pattern": "house", "phase": "batch", "batch_size": 1000, "gpu_s": 1.0, "cpu_s": "",
         "note": "deleted 0 kernel_s 0.0"},
        {"scale": 20, "pattern": "house", "phase": "batch", "batch_size": 1000, "gpu_s": 3.0, "cpu_s": "",
         "note": "deleted 0 kernel_s 0.0"},
        {"scale": 20, "pattern": "house", "phase": "recount", "batch_size": "", "gpu_s": "", "cpu_s": "",
         "note": "over 5.0 s"},
    ])
    large = write_bench_csv(tmp_path / "large.csv", [
        {"scale": 20, "pattern": "house", "phase": "batch", "batch_size": 10000, "gpu_s": 14.0, "cpu_s": "",
         "note": "deleted 0 kernel_s 0.0"},
        {"scale": 22, "pattern": "house", "phase": "batch", "batch_size": 1000, "gpu_s": 17.0, "cpu_s": "",
         "note": "deleted 0 kernel_s 0.0"},
    ])
    deletes = write_bench_csv(tmp_path / "deletes.csv", [
        {"scale": 20, "pattern": "house", "phase": "batch", "batch_size": 1000, "gpu_s": 3.4, "cpu_s": "",
         "note": "deleted 100 kernel_s 0.0"},
    ])
    assert gpu_batch_times([large, small, deletes]) == {
        ("house", False): {20: [(1000, 2.0), (10000, 14.0)], 22: [(1000, 17.0)]},
        ("house", True): {20: [(1000, 3.4)]},
    }
    out = gpu_batch_time_plot([large, small, deletes], tmp_path / "times.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
