"""The SASS instructions with the most warp stall samples in an Nsight Compute source page.

Reads the CSV of `ncu --import REPORT --page source --csv --print-source sass` (scripts/device-check.sh's
`profile` step writes it as profile/sass.csv) and prints the `--top` instructions with the most samples,
their share of all samples and how often they ran.  A stall shows on the instruction that waits, so a
load's latency appears on the first instruction that uses its result.

    python bench/gpu/stall_top.py device-check-out/profile/sass.csv --top 15
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

SAMPLES = "Warp Stall Sampling (All Samples)"
EXECUTED = "Instructions Executed"


def top_stalls(path: Path, top: int) -> tuple[int, list[tuple[int, int, int, str]]]:
    """(all samples, [(row, samples, executed, instruction)] of the `top` rows with the most samples)."""
    with path.open(newline="") as f:
        rows = list(csv.reader(f))
    header = next(i for i, row in enumerate(rows) if SAMPLES in row)
    names, data = rows[header], rows[header + 1:]
    at_samples, at_executed, at_source = names.index(SAMPLES), names.index(EXECUTED), names.index("Source")
    counted = [(i, int(row[at_samples] or 0), int(row[at_executed] or 0), row[at_source].strip())
               for i, row in enumerate(data)]
    total = sum(samples for _, samples, _, _ in counted)
    return total, sorted(counted, key=lambda item: -item[1])[:top]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", type=Path)
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    total, top = top_stalls(args.csv, args.top)
    print(f"warp stall samples: {total} in all")
    print("  row  samples  share   executed   instruction")
    for row, samples, executed, source in top:
        print(f"{row:5d} {samples:8d} {samples / max(total, 1):6.1%} {executed:10d}   {source[:70]}")


if __name__ == "__main__":
    main()
