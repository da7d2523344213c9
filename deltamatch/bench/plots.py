"""Plots drawn from CSVs (never from in-memory numbers): the suite's latency per engine and size
sweep, the GPU benchmark's speedups and batch times."""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from deltamatch.bench.engine_names import ENGINES  # noqa: E402


def _rows(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _order(engines) -> list[str]:
    return sorted(engines, key=lambda e: ENGINES.index(e) if e in ENGINES else len(ENGINES))


def latency_plot(batches_csv: Path, out: Path) -> Path:
    """Per-batch latency distribution of every engine, one panel per (graph, pattern, batch size)."""
    groups: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in _rows(batches_csv):
        key = (r["graph"], r["pattern"] + (" ind." if r["induced"] == "True" else ""), int(r["batch_size"]))
        groups[key][r["engine"]].append(float(r["latency_ms"]))
    keys = sorted(groups)
    cols = min(3, max(1, len(keys)))
    nrows = max(1, -(-len(keys) // cols))
    fig, axes = plt.subplots(nrows, cols, figsize=(5 * cols, 3.6 * nrows), squeeze=False)
    for ax, key in zip(axes.flat, keys, strict=False):
        names = _order(groups[key])
        ax.boxplot([groups[key][n] for n in names], showfliers=True)
        ax.set_xticks(range(1, len(names) + 1), names, rotation=30, ha="right", fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("batch latency (ms)")
        ax.set_title(f"{key[0]} | {key[1]} | batch {key[2]:,}", fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    return _save(fig, axes, len(keys), out)


def sweep_plot(summary_csv: Path, out: Path) -> Path:
    """Updates/s against graph size (edges) per engine, one panel per (pattern, batch size)."""
    series: dict[tuple, dict[str, list[tuple[int, float]]]] = defaultdict(lambda: defaultdict(list))
    for r in _rows(summary_csv):
        if r["status"] not in ("ok", "capped") or not r["updates_per_s"]:
            continue
        key = (r["pattern"] + (" ind." if r["induced"] == "True" else ""), int(r["batch_size"]))
        series[key][r["engine"]].append((int(r["E"]), float(r["updates_per_s"])))
    keys = sorted(series)
    cols = min(3, max(1, len(keys)))
    nrows = max(1, -(-len(keys) // cols))
    fig, axes = plt.subplots(nrows, cols, figsize=(5 * cols, 3.8 * nrows), squeeze=False)
    for ax, key in zip(axes.flat, keys, strict=False):
        for name in _order(series[key]):
            pts = sorted(series[key][name])
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("graph edges E (RMAT)")
        ax.set_ylabel("updates/s")
        ax.set_title(f"{key[0]} | batch {key[1]:,}", fontsize=9)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    return _save(fig, axes, len(keys), out)


def _gpu_batches(path: Path) -> tuple[list[dict], bool]:
    """A `bench/gpu/bench_gpu.py` CSV's timed batch rows (the diamond counted from kept triangles
    named "diamond (kept)" in `name`), and whether its batches delete."""
    rows = [r for r in _rows(path) if r["phase"] in ("batch", "batch_kept") and r["gpu_s"]]
    for r in rows:
        r["name"] = r["pattern"] + (" (kept)" if r["phase"] == "batch_kept" else "")
    return rows, any(r["phase"] == "batch" and "deleted 0 " not in r["note"] + " " for r in rows)


def gpu_speedups(bench_csvs: list[Path]) -> dict[tuple[int, bool], dict[tuple[str, int], float]]:
    """{(RMAT scale, whether the CSV's batches delete): {(pattern, batch size): median of cpu_s /
    gpu_s}} from `bench/gpu/bench_gpu.py` CSVs: the GPU's batches against the CPU engine's matching
    of the same tasks; the diamond counted from kept triangles is "diamond (kept)"."""
    ratios: dict[tuple, dict[tuple[str, int], list[float]]] = defaultdict(lambda: defaultdict(list))
    for path in bench_csvs:
        rows, deletes = _gpu_batches(path)
        for r in rows:
            if r["cpu_s"]:
                ratios[(int(r["scale"]), deletes)][(r["name"], int(r["batch_size"]))].append(
                    float(r["cpu_s"]) / float(r["gpu_s"]))
    return {panel: {bar: statistics.median(v) for bar, v in bars.items()} for panel, bars in ratios.items()}


def gpu_batch_times(bench_csvs: list[Path]) -> dict[tuple[str, bool], dict[int, list[tuple[int, float]]]]:
    """{(pattern, whether the batches delete): {RMAT scale: [(batch size, median GPU matching
    seconds)], sizes ascending}} from `bench/gpu/bench_gpu.py` CSVs, CPU engine run or not."""
    times: dict[tuple, dict[int, dict[int, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list)))
    for path in bench_csvs:
        rows, deletes = _gpu_batches(path)
        for r in rows:
            times[(r["name"], deletes)][int(r["scale"])][int(r["batch_size"])].append(float(r["gpu_s"]))
    return {panel: {scale: sorted((size, statistics.median(v)) for size, v in sizes.items())
                    for scale, sizes in lines.items()} for panel, lines in times.items()}


def gpu_batch_time_plot(bench_csvs: list[Path], out: Path) -> Path:
    """`gpu_batch_times` against the batch size, log-log, one line per RMAT scale and one panel
    per (pattern, deletions)."""
    times = gpu_batch_times(bench_csvs)
    keys = sorted(times)
    fig, axes = plt.subplots(1, max(1, len(keys)), figsize=(5 * max(1, len(keys)), 3.8), squeeze=False)
    for ax, key in zip(axes.flat, keys, strict=False):
        for scale, points in sorted(times[key].items()):
            ax.plot([p[0] for p in points], [p[1] * 1e3 for p in points], marker="o", label=f"RMAT-{scale}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("batch size (updates)")
        ax.set_ylabel("GPU matching time (ms)")
        ax.set_title(key[0] + (", 10% deletions" if key[1] else ""), fontsize=9)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    return _save(fig, axes, len(keys), out)


def gpu_speedup_plot(bench_csvs: list[Path], out: Path, goal: float = 10.0) -> Path:
    """`gpu_speedups` as bars, one panel per (scale, deletions), the goal as a line."""
    speedups = gpu_speedups(bench_csvs)
    keys = sorted(speedups)
    fig, axes = plt.subplots(1, max(1, len(keys)), figsize=(5.5 * max(1, len(keys)), 4), squeeze=False)
    for ax, key in zip(axes.flat, keys, strict=False):
        bars = sorted(speedups[key], key=lambda b: (b[1], b[0]))
        colours = ["tab:orange" if "kept" in b[0] else "tab:blue" for b in bars]
        ax.bar(range(len(bars)), [speedups[key][b] for b in bars], color=colours)
        labels = [f"{b[0]}\n{b[1]:,}" for b in bars]
        ax.set_xticks(range(len(bars)), labels, rotation=45, ha="right", fontsize=7)
        ax.axhline(goal, color="gray", linestyle="--", linewidth=1)
        ax.set_yscale("log")
        ax.set_ylabel("CPU engine time / GPU time")
        ax.set_title(f"RMAT-{key[0]}" + (", 10% deletions" if key[1] else ""), fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    return _save(fig, axes, len(keys), out)


def _save(fig, axes, used: int, out: Path) -> Path:
    """Blank the unused panels, write the figure, free it."""
    for ax in list(axes.flat)[used:]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
