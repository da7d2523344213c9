"""The SASS instructions with the most warp stall samples in an Nsight Compute source page, and
those that leave the most lanes idle.

Reads the CSV of `ncu --import REPORT --page source --csv --print-source sass` (scripts/device-check.sh's
`profile` step writes it as profile/sass.csv) and prints the `--top` instructions with the most samples,
their share of all samples and how often they ran.  A stall shows on the instruction that waits, so a
load's latency appears on the first instruction that uses its result.  Then, where the page has
thread counts (the SourceCounters section), the `--top` instructions by idle lane slots (32 a warp
instruction less the threads that ran it: issue 19's lanes per instruction, instruction by
instruction), with the kernel's lanes per instruction over all rows.  With `--cuda-lines`, the page
is one printed with `--print-source cuda,sass` (profile/cuda-sass.csv), and its CUDA source lines
are ranked the same way, each line's SASS summed, with its share of the warp instructions and samples.

    python bench/gpu/stall_top.py device-check-out/profile/sass.csv --top 15
    python bench/gpu/stall_top.py device-check-out/profile/cuda-sass.csv --cuda-lines --top 30
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path
from typing import NamedTuple

SAMPLES = "Warp Stall Sampling (All Samples)"
EXECUTED = "Instructions Executed"
THREADS = "Thread Instructions Executed"
WARP = 32


def _page(path: Path) -> tuple[list[str], list[list[str]]]:
    """The source page's column names and rows (after the lines ncu prints above the header)."""
    with path.open(newline="") as f:
        rows = list(csv.reader(f))
    header = next(i for i, row in enumerate(rows) if SAMPLES in row)
    return rows[header], rows[header + 1:]


def top_stalls(path: Path, top: int) -> tuple[int, list[tuple[int, int, int, str]]]:
    """(all samples, [(row, samples, executed, instruction)] of the `top` rows with the most samples)."""
    names, data = _page(path)
    at_samples, at_executed, at_source = names.index(SAMPLES), names.index(EXECUTED), names.index("Source")
    counted = [(i, int(row[at_samples] or 0), int(row[at_executed] or 0), row[at_source].strip())
               for i, row in enumerate(data)]
    total = sum(samples for _, samples, _, _ in counted)
    return total, sorted(counted, key=lambda item: -item[1])[:top]


def top_idle_lanes(path: Path, top: int) -> tuple[float, list[tuple[int, int, float, str]]] | None:
    """(lanes per warp instruction over the page, [(row, idle lane slots, lanes, instruction)] of the
    `top` rows with the most idle slots); None when the page has no thread counts."""
    names, data = _page(path)
    if THREADS not in names:
        return None
    at_executed, at_threads, at_source = names.index(EXECUTED), names.index(THREADS), names.index("Source")
    counted = [(i, int(row[at_executed] or 0), int(row[at_threads] or 0), row[at_source].strip())
               for i, row in enumerate(data)]
    executed = sum(e for _, e, _, _ in counted)
    threads = sum(t for _, _, t, _ in counted)
    idle = [(i, WARP * e - t, t / e, source) for i, e, t, source in counted if e]
    return threads / max(executed, 1), sorted(idle, key=lambda item: -item[1])[:top]


class LineLanes(NamedTuple):
    """One CUDA source line's SASS summed: warp instructions, thread instructions, stall samples."""

    file: str
    line: int
    executed: int
    threads: int
    samples: int
    source: str


def lanes_by_line(path: Path) -> list[LineLanes]:
    """Every CUDA line of a `--print-source cuda,sass` page (sections headed "File Path", each line's
    row carrying its SASS's sums), most idle lane slots first."""
    with path.open(newline="") as f:
        rows = list(csv.reader(f))
    lines: list[LineLanes] = []
    file, names = "", []
    for row in rows:
        if row[:1] == ["File Path"]:
            file = Path(row[1]).name
        elif SAMPLES in row:
            names = row
        elif names and row and row[0].isdigit():
            at = {name: names.index(name) for name in (SAMPLES, EXECUTED, THREADS)}
            count = {name: int(row[i]) if row[i].isdigit() else 0 for name, i in at.items()}  # "-": none
            lines.append(LineLanes(file, int(row[0]), count[EXECUTED], count[THREADS], count[SAMPLES],
                                   row[1].strip()))
    return sorted(lines, key=lambda x: -(WARP * x.executed - x.threads))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", type=Path)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--cuda-lines", action="store_true",
                    help="the page was printed with --print-source cuda,sass: its CUDA lines by idle lanes")
    args = ap.parse_args()
    if args.cuda_lines:
        lines = lanes_by_line(args.csv)
        executed, samples = sum(x.executed for x in lines), sum(x.samples for x in lines)
        idle = sum(WARP * x.executed - x.threads for x in lines)
        lanes = sum(x.threads for x in lines) / max(executed, 1)
        print(f"CUDA lines: {lanes:.1f} lanes of {WARP} a warp instruction")
        print("  idle share  lanes  instr share  samples  line")
        for x in lines[:args.top]:
            print(f"  {(WARP * x.executed - x.threads) / max(idle, 1):10.1%}"
                  f" {x.threads / max(x.executed, 1):6.1f} {x.executed / max(executed, 1):12.1%}"
                  f" {x.samples / max(samples, 1):8.1%}  {x.file}:{x.line} {x.source[:60]}")
        return
    total, top = top_stalls(args.csv, args.top)
    print(f"warp stall samples: {total} in all")
    print("  row  samples  share   executed   instruction")
    for row, samples, executed, source in top:
        print(f"{row:5d} {samples:8d} {samples / max(total, 1):6.1%} {executed:10d}   {source[:70]}")
    lanes = top_idle_lanes(args.csv, args.top)
    if lanes is None:
        print(f"no '{THREADS}' column: lanes need the SourceCounters section")
        return
    mean, rows = lanes
    print(f"lanes per warp instruction: {mean:.1f} of {WARP}")
    print("  row  idle lane slots  lanes   instruction")
    for row, idle, active, source in rows:
        print(f"{row:5d} {idle:16d} {active:6.1f}   {source[:70]}")


if __name__ == "__main__":
    main()
