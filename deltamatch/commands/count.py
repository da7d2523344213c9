"""Count a pattern's matches in an edge file (or an RMAT graph) once, without the service."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Iterator

import numba
import numba.core.event
import numpy as np

from deltamatch.bench.rmat import rmat_edges
from deltamatch.io.readers import EdgeFileError, read_edges
from deltamatch.scheduler.core import SchedulerCore, WorkerPool
from deltamatch.scheduler.names import VertexIdError
from deltamatch.scheduler.patterns import PatternError, parse_pattern
from deltamatch.workers.replica import GraphReplica

RMAT_PREFIX = "rmat:"


class SourceError(ValueError):
    """A FILE argument that names no readable graph."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        metavar="FILE",
        help="edge file (SNAP text/CSV, Matrix Market, .npy; .gz ok) or rmat:SCALE[:EF[:SEED]]",
    )
    parser.add_argument(
        "pattern", metavar="PATTERN", help="built-in name (e.g. triangle) or edges 0-1,1-2,2-0"
    )
    parser.add_argument("--induced", action="store_true", help="vertex-induced matching")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_engine_arguments(parser)


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """--backend, --columns, --workers, --threads and --no-hoist, shared with `replay`."""
    parser.add_argument(
        "--backend", choices=("auto", "cpu", "cuda"), default="auto",
        help="engine: cuda (CuPy on the GPU), cpu (numba), auto = cuda when a GPU is visible (default)",
    )
    parser.add_argument(
        "--columns", type=parse_columns, default=(0, 1), metavar="A,B",
        help="the two id columns of a text file, by position (0,1: the default) or by header name "
             "(source,target: the first row is the header)",
    )
    parser.add_argument(
        "--workers", type=int, default=1, metavar="N", help="local worker replicas (default 1)"
    )
    parser.add_argument(
        "--threads", type=int, default=None, metavar="T", help="numba threads (default: all cores)"
    )
    parser.add_argument(
        "--no-hoist",
        action="store_true",
        help="greedy matching order, every candidate set rebuilt per prefix (the hoisting ablation)",
    )


def parse_columns(text: str) -> tuple[int | str, int | str]:
    """`--columns A,B`: positions (integers) or header names."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(parts):
        raise argparse.ArgumentTypeError(f"expected two columns A,B, got {text!r}")
    return tuple(int(p) if p.isdigit() else p for p in parts)


def load_source(spec: str, columns: tuple[int | str, int | str] = (0, 1)) -> np.ndarray:
    """Edge pairs of FILE: an edge file, or `rmat:SCALE[:EDGEFACTOR[:SEED]]`."""
    if spec.startswith(RMAT_PREFIX):
        parts = spec[len(RMAT_PREFIX) :].split(":")
        try:
            if not 1 <= len(parts) <= 3:
                raise ValueError
            numbers = [int(p) for p in parts]
        except ValueError as exc:
            raise SourceError(f"{spec!r}: expected rmat:SCALE[:EDGEFACTOR[:SEED]] with integers") from exc
        try:
            return rmat_edges(*numbers)
        except ValueError as exc:
            raise SourceError(f"{spec!r}: {exc}") from exc
    return read_edges(spec, columns)


def check_threads(threads: int | None, flag: str) -> int | None:
    """`threads` when it is None or within 1..(numba's thread count), else SourceError naming `flag`."""
    if threads is not None and not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
        raise SourceError(f"{flag} must be in 1..{numba.config.NUMBA_NUM_THREADS}, got {threads}")
    return threads


def make_core(workers: int, threads: int | None, backend: str = "cpu", **kwargs) -> SchedulerCore:
    """A local scheduler over `workers` replicas on `backend`, numba limited to `threads`."""
    if workers < 1:
        raise SourceError(f"--workers must be at least 1, got {workers}")
    if check_threads(threads, "--threads") is not None:
        numba.set_num_threads(threads)
    try:
        replicas = [GraphReplica(backend) for _ in range(workers)]
    except Exception as exc:  # CuPy missing, no device, driver errors: one line, not a traceback
        raise SourceError(f"--backend {backend}: {type(exc).__name__}: {exc}") from exc
    return SchedulerCore(WorkerPool(replicas), **kwargs)


class _CompileNotice(numba.core.event.Listener):
    """Says once, on stderr, that numba compiles: it does so only on a disk-cache miss."""

    def __init__(self) -> None:
        self.said = False

    def on_start(self, event) -> None:
        if not self.said:
            print("compiling kernels (first run only) ...", file=sys.stderr, flush=True)
            self.said = True

    def on_end(self, event) -> None:
        return None


@contextlib.contextmanager
def compile_notice() -> Iterator[None]:
    """Within the block, the first numba compilation (some 20 s for the CPU engine) is announced."""
    with numba.core.event.install_listener("numba:compile", _CompileNotice()):
        yield


def run(args: argparse.Namespace) -> int:
    with compile_notice():
        try:
            pattern = parse_pattern(args.pattern, induced=args.induced)
            t0 = time.perf_counter()
            edges = load_source(args.file, args.columns)
            core = make_core(args.workers, args.threads, args.backend, hoist=not args.no_hoist)
            t1 = time.perf_counter()
            core.load(edges)
        except (PatternError, EdgeFileError, SourceError, VertexIdError) as exc:
            print(f"deltamatch count: {exc}", file=sys.stderr)
            return 2
        t2 = time.perf_counter()
        reg = core.register(pattern)
        t3 = time.perf_counter()
    stats = core.stats()
    out = {
        "file": args.file,
        "pattern": pattern.name or args.pattern,
        "k": pattern.k,
        "edges": [list(e) for e in pattern.edges],
        "induced": pattern.induced,
        "total": reg.total,
        "graph": {"vertices": stats.vertices, "edges": stats.edges, "max_degree": stats.max_degree},
        "plans": reg.num_plans,
        "hoist": not args.no_hoist,
        "backend": core.pool.replicas[0].backend.name,
        "threads": numba.get_num_threads(),
        "workers": len(core.pool),
        "read_seconds": round(t1 - t0, 6),
        "load_seconds": round(t2 - t1, 6),
        "seconds": round(t3 - t2, 6),
    }
    if args.json:
        print(json.dumps(out))
    else:
        g = out["graph"]
        print(
            f"{out['pattern']}{' (induced)' if pattern.induced else ''}: {reg.total} matches in {args.file} "
            f"(V={g['vertices']}, E={g['edges']}, max degree {g['max_degree']}; "
            f"counted in {out['seconds']:.3f} s on {out['threads']} threads)"
        )
    return 0
