"""`python -m deltamatch.bench …`: the suite without the `deltamatch` dispatcher (no service imports)."""

from __future__ import annotations

import argparse
import sys

from deltamatch.commands import bench


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deltamatch.bench", description=bench.__doc__)
    bench.add_arguments(parser)
    return bench.run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
