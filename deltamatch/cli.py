"""`deltamatch` command line: one subcommand per module in `deltamatch.commands`."""

from __future__ import annotations

import argparse
import importlib
import sys

from deltamatch import __version__

COMMANDS = {
    "serve": "run the service (FastAPI + Ray scheduler + workers)",
    "load": "bulk-load an edge file into a running service, with a progress bar",
    "replay": "load a fraction of a file's edges, stream the rest as batches",
    "count": "count a pattern in a file once (no service)",
    "bench": "the benchmark suite (SPEC §4)",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="deltamatch", description=__doc__)
    parser.add_argument("--version", action="version", version=f"deltamatch {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    modules = {}
    for name, help_text in COMMANDS.items():
        module = importlib.import_module(f"deltamatch.commands.{name}")
        module.add_arguments(sub.add_parser(name, help=help_text, description=module.__doc__))
        modules[name] = module
    args = parser.parse_args(argv)
    return int(modules[args.command].run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
