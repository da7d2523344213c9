"""Bulk-load an edge file (SNAP text, Matrix Market, .npy; gzip allowed) into a running service.

The file is read here and sent in chunks of --batch edges, one version per chunk, with a
progress bar; without --batch it goes as one version.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from deltamatch.commands.count import parse_columns


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="edge file to load")
    parser.add_argument("--url", default=os.environ.get("DELTAMATCH_URL", "http://127.0.0.1:8000"),
                        help="service URL (default $DELTAMATCH_URL or http://127.0.0.1:8000)")
    parser.add_argument("--batch", type=int, default=None, help="edges per request (default: all at once)")
    parser.add_argument("--token", default=os.environ.get("DELTAMATCH_TOKEN"),
                        help="bearer token (default $DELTAMATCH_TOKEN)")
    parser.add_argument("--json", action="store_true", help="print one JSON answer per chunk")
    parser.add_argument("--columns", type=parse_columns, default=(0, 1), metavar="A,B",
                        help="the two id columns of a text file, by position or header name (default 0,1)")


def run(args: argparse.Namespace) -> int:
    """Load the file; prints the last version and the totals per pattern."""
    from tqdm import tqdm

    from deltamatch.io.readers import EdgeFileError, read_edge_file
    from deltamatch.service.client import DeltamatchClient, DeltamatchError, ServiceUnreachableError

    if args.batch is not None and args.batch < 1:
        print("load: --batch must be at least 1", file=sys.stderr)
        return 2
    try:
        edges = read_edge_file(args.file, args.columns).pairs
    except EdgeFileError as exc:
        print(f"load: {exc}", file=sys.stderr)
        return 2
    step = args.batch or max(1, edges.shape[0])
    answer = None
    with DeltamatchClient(args.url, token=args.token) as client:
        if not client.healthy():
            print(f"load: {ServiceUnreachableError(args.url, ConnectionError('no answer'))}", file=sys.stderr)
            return 1
        try:
            with tqdm(total=edges.shape[0], unit="edge", unit_scale=True, disable=args.json,
                      desc=os.path.basename(args.file)) as bar:
                for start in range(0, max(1, edges.shape[0]), step):
                    chunk = edges[start: start + step]
                    answer = client.load_edges(chunk)
                    bar.update(chunk.shape[0])
                    if args.json:
                        print(json.dumps(answer))
        except DeltamatchError as exc:
            print(f"load: {exc}", file=sys.stderr)
            return 1
    if not args.json and answer is not None:
        totals = ", ".join(f"pattern {k}: {v['total']}" for k, v in answer["deltas"].items())
        print(f"version {answer['version']}: {edges.shape[0]} edges sent, "
              f"{answer['inserted']} inserted in the last chunk" + (f"; totals {totals}" if totals else ""))
    return 0
