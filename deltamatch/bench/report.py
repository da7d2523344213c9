"""Tables from the committed CSVs: the README's benchmark section and the sweep's crossover points.

`python -m deltamatch.bench.report` prints the section; `--write-readme` replaces the text
between `<!-- section: bench -->` and the next heading of README.md with it.  No number in
that section is typed by hand: all come from `bench/results/*.csv`.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from collections import defaultdict
from pathlib import Path

from deltamatch.bench.engine_names import ABLATION_PAIRS, ENGINES
from deltamatch.bench.graphs import REPO_ROOT

RESULTS_DIR = REPO_ROOT / "bench" / "results"
MARKER = "<!-- section: bench -->"
RATIOS = (("cpu-all", "cpu_1"), ("cpu-1", "recount"), ("cpu-all", "recount"), ("cpu-all", "networkx"),
          ("gpu", "cpu_all"), ("gpu", "recount"), ("rest", "cpu_all")) + tuple(
              (ablation, base.replace("-", "_")) for ablation, base in ABLATION_PAIRS)


def read_rows(path: Path) -> list[dict]:
    """A CSV's rows as dicts."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def summary_files(results: Path) -> list[Path]:
    """The suite's per-run summary CSVs under `results` (not per-batch files, extras or test runs)."""
    out = []
    for path in sorted(results.glob("*.csv")):
        if path.name.startswith("test-") or path.stem.endswith("-batches"):
            continue
        with open(path, newline="") as f:
            header = next(csv.reader(f), [])
        if {"run_id", "engine", "updates_per_s", "speedup_vs_cpu_1"} <= set(header):
            out.append(path)
    return out


def _num(s: str) -> float | None:
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def _rate(row: dict | None) -> str:
    if row is None:
        return ""
    if row["status"] == "skipped":
        return "skipped"
    value = _num(row["updates_per_s"])
    if value is None:
        return f"{row['status']} (no batch finished)" if row["status"] == "capped" else row["status"]
    n = int(row["batches_run"] or 0)
    mark = f" (capped after {n} batch{'' if n == 1 else 'es'})" if row["status"] == "capped" else ""
    return f"{value:,.0f}{mark}"


def _cases(rows: list[dict]) -> dict[tuple, dict[str, dict]]:
    cases: dict[tuple, dict[str, dict]] = defaultdict(dict)
    for r in rows:
        key = (r["graph"], r["V"], r["E"], r["max_degree"], r["pattern"], r["induced"], r["batch_size"],
               r["delete_fraction"])
        cases[key][r["engine"]] = r
    return cases


def run_table(rows: list[dict]) -> str:
    """One run as a Markdown table: problem size, updates/s per engine, the headline ratios."""
    r0 = rows[0]
    head = (f"Run `{r0['run_id']}` — commit `{r0['commit']}`, {r0['device']}, {r0['date']}, "
            f"`deltamatch bench {r0['argv']}`; load fraction {r0['load_fraction']}, "
            f"{r0['workers']} worker(s); 1-min load average during the run "
            f"{min(float(r['loadavg']) for r in rows):.1f}–{max(float(r['loadavg']) for r in rows):.1f}.")
    present = {r["engine"] for r in rows}
    engines = [e for e in ENGINES if e in present]
    ratios = [(a, b) for a, b in RATIOS if a in present and b.replace("_", "-") in present]
    cols = ["graph", "V", "E", "max deg", "batch", "del", "pattern"] + [f"{e} upd/s" for e in engines]
    cols += [f"{a} ÷ {b.replace('_', '-')}" for a, b in ratios] + ["agree"]
    lines = [head, "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for key, by_engine in _cases(rows).items():
        graph, v, e, dmax, pattern, induced, batch, dele = key
        cells = [graph, f"{int(v):,}", f"{int(e):,}", f"{int(dmax):,}", f"{int(batch):,}", dele,
                 pattern + (" (induced)" if induced == "True" else "")]
        cells += [_rate(by_engine.get(name)) for name in engines]
        for a, b in ratios:
            value = _num(by_engine[a][f"speedup_vs_{b}"]) if a in by_engine else None
            cells.append(f"{value:.3g}×" if value is not None else "")
        verdicts = {r["agree"] for r in by_engine.values() if r["agree"]}
        cells.append("no" if "no" in verdicts else "yes" if verdicts else "")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def replay_files(results: Path) -> list[Path]:
    """The CPU replay benchmark's CSVs (`bench/cpu/replay_bench.py`) under `results`, any depth,
    from the version that records the hoisting switch on."""
    out = []
    for path in sorted(results.rglob("cpu-replay-*.csv")):
        with open(path, newline="") as f:
            if "hoist" in next(csv.reader(f), []):
                out.append(path)
    return out


def replay_table(rows: list[dict]) -> str:
    """One replay benchmark file as a Markdown table: per pattern and stream thread count."""
    r0 = rows[0]
    sizes = {(r["vertices"], r["edges"], r["max_degree"]) for r in rows if r["vertices"]}
    size = "; ".join(f"V={int(v):,}, E={int(e):,}, max degree {int(d):,}" for v, e, d in sorted(sizes))
    head = (f"Commit `{r0['commit']}`, {r0['machine']}, {r0['date']}: `{r0['graph']}`"
            f"{f' ({size})' if size else ''}, batches of {int(r0['batch']):,} insertions.")
    cols = ["pattern", "hoist", "stream threads", "batches", "matches after", "static count s",
            "batch p50 / mean s", "updates/s", "recount s", "recount ÷ batch", "recount equal"]
    lines = [head, "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        if not r["total"]:
            lines.append(f"| {r['pattern']} | {r['hoist']} | {r['threads']} | {r['batches']} |" + " |" * 7)
            continue
        cells = [r["pattern"], r["hoist"], r["threads"], r["batches"], f"{int(r['total']):,}",
                 f"{float(r['static_seconds']):.3g}",
                 f"{float(r['batch_p50_seconds']):.3g} / {float(r['batch_mean_seconds']):.3g}",
                 f"{int(r['updates_per_second']):,}",
                 f"{float(r['recount_mean_seconds']):.3g}" if r["recount_mean_seconds"] else "",
                 f"{float(r['speedup_vs_recount']):.3g}×" if r["speedup_vs_recount"] else "",
                 r["recount_equal"]]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


REPLAY_INTRO = """\
**CPU replay** (`python bench/cpu/replay_bench.py`): `deltamatch replay` on an RMAT graph, per
pattern, the stream on one core and on all cores; the whole-graph counts (the initial one and the
recounts) run on all cores in both (`--count-threads`). "recount ÷ batch" is a from-scratch
recount's mean time over the mean batch time, in the all-core run, where every recount was also
checked against the running total ("recount equal")."""


CROSSOVERS = (("gpu", "cpu-all", "the GPU", "the all-core CPU"),
              ("cpu-all", "cpu-1", "all cores", "one core"))


def crossover_lines(rows: list[dict]) -> list[str]:
    """Per (pattern, batch size) of a sweep: the first RMAT size where the GPU beats the all-core
    CPU (and where all cores beat one), in updates/s, with the problem size."""
    groups: dict[tuple, dict[int, dict[str, dict]]] = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        if r["scale"]:
            groups[(r["pattern"], r["induced"], r["batch_size"])][int(r["scale"])][r["engine"]] = r
    out = []
    for (pattern, induced, batch), by_scale in sorted(groups.items()):
        label = f"{pattern}{' (induced)' if induced == 'True' else ''}, batch {int(batch):,}"
        for fast, slow, fast_name, slow_name in CROSSOVERS:
            out.append(f"crossover {label}, {fast} over {slow}: "
                       + _crossover(by_scale, fast, slow, fast_name, slow_name))
    return out


def _size(row: dict) -> str:
    return f"V={int(row['V']):,}, E={int(row['E']):,}, max degree {int(row['max_degree']):,}"


def _crossover(by_scale: dict[int, dict[str, dict]], fast: str, slow: str, fast_name: str,
               slow_name: str) -> str:
    scales = sorted(by_scale)
    ran = [by_scale[s][fast] for s in scales if fast in by_scale[s]]
    if not any(r["status"] in ("ok", "capped") for r in ran) or not any(slow in by_scale[s] for s in scales):
        why = next((r["note"] for r in ran if r["note"]), f"no {fast} or {slow} engine in this run")
        return f"not measured ({why})"
    for s in scales:
        f, w = by_scale[s].get(fast), by_scale[s].get(slow)
        fv = _num(f["updates_per_s"]) if f else None
        wv = _num(w["updates_per_s"]) if w else None
        if fv is not None and wv is not None and fv > wv:
            return (f"{fast_name} first beats {slow_name} at RMAT scale {s} ({_size(f)}): "
                    f"{fv:,.0f} vs {wv:,.0f} updates/s")
    top = next(iter(by_scale[scales[-1]].values()))
    return f"{fast_name} never beat {slow_name} up to RMAT scale {scales[-1]} ({_size(top)})"


INTRO = """\
`deltamatch bench` runs every engine on the identical workload, in one run (SPEC §4): load a
fraction (default 90%) of a graph's distinct edges in file order (or `--shuffle SEED`), stream the
rest in batches (`--batch 100,1000`), optionally mixing in deletions of present edges
(`--delete-fraction`). Engines: `gpu` (GraphReplica("cuda"), skipped without CuPy and a device),
`cpu-1` / `cpu-all` (the numba engine on one core / all cores), `recount` (apply the batch, count the
whole graph from scratch; its totals are the reference every other engine must equal, batch by
batch; a mismatch fails the run), `networkx` (an `nx.Graph` recounted after every batch with
`nx.triangles`, `nx.enumerate_all_cliques` or VF2, capped by `--nx-max-edges` and `--nx-time-limit`),
`rest` (`--rest URL`, through a running service whose graph starts empty), the shared-plans
ablation `cpu-1-noshare` / `cpu-all-noshare` / `gpu-noshare` (one plan per oriented pattern edge
instead of one per automorphism orbit), and the hoisting ablation `cpu-1-nohoist` /
`cpu-all-nohoist` / `gpu-nohoist` (the greedy matching order, every candidate set rebuilt per
prefix). `--extra allocation` adds the allocation benchmark
(`<run>-allocation.csv`). Per engine: batch latency p50/p99,
updates/s, matches/s (|added| + |removed| per second), graph-update time, busy seconds per
worker and max/min imbalance (`--workers N`), and speedups as mean-latency ratios over the
batches both engines finished. Every ratio is printed and stored next to V, E, max degree and
batch size. `--time-limit S` caps each engine run, checked between batches (the static count
after the load is never cut short); `--max-batches N` bounds the stream.

```sh
deltamatch bench --quick                                   # CPU engines, small RMAT + ca-GrQc, < 5 min
python -m deltamatch.bench --graphs rmat:16,email-Enron --patterns triangle diamond --batch 1000 10000
python -m deltamatch.bench --sweep --scales 16-23 --patterns triangle --batch 10000   # on the device
python -m deltamatch.bench --config bench/configs/cpu-medium.json    # the larger CPU run below
python -m deltamatch.bench --config bench/configs/device.json --out $OUT         # GPU machine
python -m deltamatch.bench --config bench/configs/device-sweep.json --out $OUT   # GPU crossover sweep
python -m deltamatch.bench.report --write-readme           # regenerates this section from the CSVs
```

Results (`bench/results/<run>.csv`, `<run>-batches.csv`, `<run>-latency.png`, `<run>-sweep.png`)
carry the commit, device, date and every parameter. The tables below are generated from those
CSVs by `python -m deltamatch.bench.report`; updates/s is the number of submitted updates over
the summed batch latency; "capped" marks a baseline stopped by its time or size cap (the ratios
then cover the batches it finished). Each run's heading gives the machine's load average while it
ran: on a shared 2-core machine a high load makes the all-core (2-thread) figures mostly a
measure of contention, so read `cpu-all` there with that in mind.
"""


def section(results: Path = RESULTS_DIR) -> str:
    """The README's benchmark section, generated from the summary CSVs under `results`."""
    parts = [INTRO]
    for path in summary_files(results):
        rows = read_rows(path)
        if not rows:
            continue
        parts.append(f"**`{path.name}`**\n\n" + run_table(rows))
        if rows[0]["mode"] == "sweep":
            parts.append("\n".join(f"- {line}" for line in crossover_lines(rows)))
        plots = sorted(p.name for p in results.glob(f"{path.stem}-*.png"))
        if plots:
            parts.append("Plots: " + ", ".join(f"[{p}](bench/results/{p})" for p in plots))
    replays = [(path, read_rows(path)) for path in replay_files(results)]
    if any(rows for _, rows in replays):
        parts.append(REPLAY_INTRO)
    for path, rows in replays:
        if rows:
            parts.append(f"**`{path.relative_to(results)}`**\n\n" + replay_table(rows))
    return "\n\n".join(parts) + "\n"


def write_readme(readme: Path, text: str) -> None:
    """Replace the bench section of `readme` (marker to the next heading) with `text`."""
    content = readme.read_text()
    at = content.find(MARKER)
    if at < 0:
        raise ValueError(f"{readme}: no {MARKER!r} marker")
    start = at + len(MARKER)
    nxt = re.search(r"^## ", content[start:], flags=re.M)
    end = start + nxt.start() if nxt else len(content)
    readme.write_text(content[:start] + "\n" + text + "\n" + content[end:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deltamatch.bench.report", description=__doc__)
    parser.add_argument("--results", type=Path, default=RESULTS_DIR, help="directory of the suite's CSVs")
    parser.add_argument("--write-readme", nargs="?", const=REPO_ROOT / "README.md", type=Path, default=None,
                        metavar="README", help="replace the README's bench section (default README.md)")
    args = parser.parse_args(argv)
    text = section(args.results)
    if args.write_readme:
        write_readme(args.write_readme, text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
