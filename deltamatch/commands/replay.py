"""Replay an edge file as a stream: load a fraction of its edges, then apply the rest in batches.

Edges keep file order (time order for timestamped files) unless `--shuffle SEED`.  Each
batch prints its version, added, removed, total and seconds (JSON: one object per line).
Runs on local CPU replicas, or against a running service with `--url`.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import sys
import time
from collections.abc import Iterator

import numba
import numpy as np

from deltamatch.commands.count import (
    SourceError,
    add_engine_arguments,
    check_threads,
    compile_notice,
    load_source,
    make_core,
)
from deltamatch.io.readers import EdgeFileError
from deltamatch.scheduler.names import VertexIdError
from deltamatch.scheduler.patterns import BUILTIN_PATTERNS, PatternError, parse_pattern

LOAD_CHUNKS = 20
MIN_LOAD_CHUNK = 10_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        metavar="FILE",
        help="edge file (SNAP text/CSV, Matrix Market, .npy; .gz ok) or rmat:SCALE[:EF[:SEED]]",
    )
    parser.add_argument("--pattern", required=True, metavar="P", help="built-in name or edges 0-1,1-2,2-0")
    parser.add_argument("--induced", action="store_true", help="vertex-induced matching")
    parser.add_argument(
        "--load-fraction",
        type=float,
        default=0.9,
        metavar="F",
        help="fraction of the edges loaded before streaming (default 0.9)",
    )
    parser.add_argument(
        "--batch", type=int, default=1000, metavar="N", help="insertions per batch (default 1000)"
    )
    parser.add_argument("--shuffle", type=int, default=None, metavar="SEED", help="shuffle the edges first")
    parser.add_argument(
        "--delete-fraction",
        type=float,
        default=0.0,
        metavar="F",
        help="each batch also deletes F*N random present edges (default 0)",
    )
    parser.add_argument("--max-batches", type=int, default=None, metavar="M", help="stop after M batches")
    parser.add_argument(
        "--recount",
        action="store_true",
        help="after every batch, count from scratch too, check it equals the total, time it",
    )
    parser.add_argument(
        "--per-edge-plans",
        action="store_true",
        help="per-edge plans instead of shared plans (the ablation baseline)",
    )
    parser.add_argument(
        "--count-threads",
        type=int,
        default=None,
        metavar="T",
        help="numba threads for the whole-graph counts (the initial one and --recount; default --threads)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per batch")
    parser.add_argument("--url", default=None, help="replay through a running service at URL")
    parser.add_argument("--token", default=None, help="bearer token for --url (default: $DELTAMATCH_TOKEN)")
    add_engine_arguments(parser)


def _check(args: argparse.Namespace) -> None:
    if not 0.0 <= args.load_fraction <= 1.0:
        raise SourceError(f"--load-fraction must be in [0, 1], got {args.load_fraction}")
    if args.batch < 1:
        raise SourceError(f"--batch must be at least 1, got {args.batch}")
    if not 0.0 <= args.delete_fraction <= 1.0:
        raise SourceError(f"--delete-fraction must be in [0, 1], got {args.delete_fraction}")
    if args.max_batches is not None and args.max_batches < 0:
        raise SourceError(f"--max-batches must be non-negative, got {args.max_batches}")
    if args.url and (args.recount or args.per_edge_plans or args.no_hoist or args.count_threads):
        raise SourceError("--recount, --per-edge-plans, --no-hoist and --count-threads run locally; "
                          "drop them with --url")


class _Local:
    """The stream's target: local CPU replicas under a SchedulerCore."""

    def __init__(self, args: argparse.Namespace):
        self.core = make_core(args.workers, args.threads, args.backend, shared=not args.per_edge_plans,
                              hoist=not args.no_hoist, list_limit=0)
        self.count_threads = check_threads(args.count_threads, "--count-threads")
        self.pid = -1

    @contextlib.contextmanager
    def _counting(self) -> Iterator[None]:
        """Whole-graph counts run on --count-threads threads, the stream on --threads."""
        stream_threads = numba.get_num_threads()
        numba.set_num_threads(self.count_threads or stream_threads)
        try:
            yield
        finally:
            numba.set_num_threads(stream_threads)

    def load(self, chunk: np.ndarray) -> None:
        self.core.load(chunk)

    def register(self, pattern) -> int:
        with self._counting():
            reg = self.core.register(pattern)
        self.pid = reg.id
        return reg.total

    def update(self, insert: np.ndarray, delete: np.ndarray) -> dict:
        out = self.core.apply(insert, delete)
        d = out.deltas[self.pid]
        return {
            "version": out.version,
            "inserted": out.inserted,
            "deleted": out.deleted,
            "ignored": out.ignored,
            "added": d.added_count,
            "removed": d.removed_count,
            "total": d.total,
        }

    def recount(self) -> int:
        with self._counting():
            return self.core.pool.static_count(self.pid)

    def stats(self) -> dict:
        return dataclasses.asdict(self.core.stats())


class _Remote:
    """The stream's target: a running service (SPEC §2.1) through its client."""

    def __init__(self, args: argparse.Namespace):
        from deltamatch.service.client import DeltamatchClient

        self.client = DeltamatchClient(args.url, token=args.token or os.environ.get("DELTAMATCH_TOKEN"))
        self.pid = ""

    def load(self, chunk: np.ndarray) -> None:
        self.client.load_edges(chunk)

    def register(self, pattern) -> int:
        if pattern.name in BUILTIN_PATTERNS:
            reg = self.client.register_pattern(name=pattern.name, induced=pattern.induced)
        else:
            reg = self.client.register_pattern(
                edges=[list(e) for e in pattern.edges], induced=pattern.induced
            )
        self.pid = str(reg["id"])
        return int(reg["total"])

    def update(self, insert: np.ndarray, delete: np.ndarray) -> dict:
        ans = self.client.update(insert, delete)
        d = ans["deltas"][self.pid]
        return {
            "version": ans["version"],
            "inserted": ans["inserted"],
            "deleted": ans["deleted"],
            "ignored": ans["ignored"],
            "added": d["added"],
            "removed": d["removed"],
            "total": d["total"],
        }

    def stats(self) -> dict:
        return self.client.cluster().get("graph", {})


def _batches(
    stream: np.ndarray, alive: np.ndarray, size: int, delete_fraction: float, rng: np.random.Generator
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(insert, delete) per batch: `size` stream edges, and delete_fraction*size random present edges."""
    n_alive = alive.shape[0]
    pool = np.concatenate([alive, stream])
    per_batch = int(round(delete_fraction * size))
    for start in range(0, stream.shape[0], size):
        ins = stream[start : start + size]
        if per_batch == 0:
            yield ins, np.zeros((0, 2), dtype=np.int64)
            continue
        # pool[:n_alive] are the present edges; this batch's insertions follow them.
        k = min(per_batch, n_alive)
        pick = rng.choice(n_alive, size=k, replace=False) if k else np.zeros(0, np.int64)
        dele = pool[pick].copy()
        keep = np.ones(n_alive, dtype=bool)
        keep[pick] = False
        survivors = pool[:n_alive][keep]
        n_alive = survivors.shape[0] + ins.shape[0]
        pool[:n_alive] = np.concatenate([survivors, ins])
        yield ins, dele


def run(args: argparse.Namespace) -> int:
    try:
        _check(args)
        pattern = parse_pattern(args.pattern, induced=args.induced)
        edges = load_source(args.file, args.columns)
        target = _Remote(args) if args.url else _Local(args)
    except (PatternError, EdgeFileError, SourceError) as exc:
        print(f"deltamatch replay: {exc}", file=sys.stderr)
        return 2
    errors: tuple[type[Exception], ...] = (VertexIdError,)
    if args.url:
        from deltamatch.service.client import DeltamatchError

        errors += (DeltamatchError,)
    try:
        with compile_notice():
            return _replay(args, target, pattern, edges)
    except errors as exc:
        print(f"deltamatch replay: {exc}", file=sys.stderr)
        return 1


def _replay(args: argparse.Namespace, target, pattern, edges: np.ndarray) -> int:
    """Load, register, stream the batches; prints as the module docstring says."""
    from tqdm import tqdm

    rng = np.random.default_rng(args.shuffle if args.shuffle is not None else 0)
    if args.shuffle is not None:
        edges = edges[rng.permutation(edges.shape[0])]
    n_load = int(round(args.load_fraction * edges.shape[0]))
    chunk = max(MIN_LOAD_CHUNK, -(-n_load // LOAD_CHUNKS))
    t0 = time.perf_counter()
    with tqdm(total=n_load, unit="edge", unit_scale=True, desc="load", file=sys.stderr, disable=None) as bar:
        for start in range(0, n_load, chunk):
            part = edges[start : min(start + chunk, n_load)]
            target.load(part)
            bar.update(part.shape[0])
    t1 = time.perf_counter()
    total = target.register(pattern)
    t2 = time.perf_counter()
    stats = target.stats()
    head = {
        "file": args.file,
        "pattern": pattern.name or args.pattern,
        "induced": pattern.induced,
        "loaded": n_load,
        "streamed": int(edges.shape[0] - n_load),
        "batch": args.batch,
        "vertices": stats.get("vertices"),
        "edges": stats.get("edges"),
        "max_degree": stats.get("max_degree"),
        "total": total,
        "load_seconds": round(t1 - t0, 6),
        "static_seconds": round(t2 - t1, 6),
    }
    print(
        json.dumps(head)
        if args.json
        else f"loaded {n_load} edges (V={head['vertices']}, E={head['edges']}, "
        f"max degree {head['max_degree']}) "
        f"in {head['load_seconds']:.2f} s; {head['pattern']}: {total} matches, counted in "
        f"{head['static_seconds']:.3f} s",
        file=sys.stderr,
    )
    batches = _batches(edges[n_load:], edges[:n_load], args.batch, args.delete_fraction, rng)
    done, updates, busy, mismatches = 0, 0, 0.0, 0
    for ins, dele in batches:
        if args.max_batches is not None and done >= args.max_batches:
            break
        start = time.perf_counter()
        row = target.update(ins, dele)
        row["seconds"] = round(time.perf_counter() - start, 6)
        busy += row["seconds"]
        updates += int(ins.shape[0] + dele.shape[0])
        done += 1
        if args.recount:
            start = time.perf_counter()
            row["recount"] = target.recount()
            row["recount_seconds"] = round(time.perf_counter() - start, 6)
            mismatches += row["recount"] != row["total"]
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            extra = f"  recount {row['recount']} in {row['recount_seconds']:.4f} s" if args.recount else ""
            print(
                f"v{row['version']}: +{row['inserted']} -{row['deleted']} edges  added {row['added']}  "
                f"removed {row['removed']}  total {row['total']}  {row['seconds']:.4f} s{extra}",
                flush=True,
            )
    rate = updates / busy if busy > 0 else 0.0
    print(f"{done} batches, {updates} updates in {busy:.3f} s ({rate:,.0f} updates/s)", file=sys.stderr)
    if mismatches:
        print(f"deltamatch replay: {mismatches} batches disagree with the recount", file=sys.stderr)
        return 1
    return 0
