"""Graph sources for the suite: `rmat:SCALE[:EF[:SEED]]`, the shared real graphs by name, user files."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA_ENV = "DELTAMATCH_DATA"
DATA_SUFFIXES = (".txt.gz", ".csv.gz", ".txt", ".csv", ".mtx", ".mtx.gz", ".npy")


class GraphSpecError(ValueError):
    """A graph argument the suite cannot resolve; the message names it."""


@dataclass(frozen=True)
class BenchGraph:
    """A simple undirected graph as (m, 2) int64 pairs u < v, distinct, in source order."""

    name: str
    kind: str  # "rmat", "real" or "file"
    edges: np.ndarray
    scale: int | None = None
    edge_factor: int | None = None
    seed: int | None = None

    @property
    def stats(self) -> dict:
        """Problem size: vertices (with an edge), undirected edges, max degree."""
        return graph_stats(self.edges)


def graph_stats(edges: np.ndarray) -> dict:
    """Vertices with an edge, number of edges and max degree of a simple edge list."""
    if edges.shape[0] == 0:
        return {"V": 0, "E": 0, "max_degree": 0}
    ids, deg = np.unique(edges.reshape(-1), return_counts=True)
    return {"V": int(ids.shape[0]), "E": int(edges.shape[0]), "max_degree": int(deg.max())}


def simple_edges(pairs: np.ndarray) -> np.ndarray:
    """Drop self-loops, orient u < v, keep the first occurrence of each pair (source order kept)."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    lo = np.minimum(pairs[:, 0], pairs[:, 1])
    hi = np.maximum(pairs[:, 0], pairs[:, 1])
    _, first = np.unique((lo << 32) | hi, return_index=True)
    first.sort()
    return np.stack([lo[first], hi[first]], axis=1)


def data_dirs() -> list[Path]:
    """Where named real graphs are looked up: $DELTAMATCH_DATA, ../shared/data, shared/data."""
    dirs = [Path(os.environ[DATA_ENV])] if os.environ.get(DATA_ENV) else []
    return dirs + [REPO_ROOT.parent / "shared" / "data", REPO_ROOT / "shared" / "data"]


def real_graph_path(name: str, data_dir: str | Path | None = None) -> Path | None:
    """The file of a named real graph (e.g. `ca-GrQc`), or None when no data dir holds it."""
    for d in [Path(data_dir)] if data_dir else data_dirs():
        for suffix in ("", *DATA_SUFFIXES):
            p = d / f"{name}{suffix}"
            if p.is_file():
                return p
    return None


def parse_rmat(spec: str) -> tuple[int, int, int]:
    """`rmat:SCALE[:EF[:SEED]]` -> (scale, edge_factor, seed); defaults EF 16, seed 1."""
    parts = spec.split(":")[1:]
    if not 1 <= len(parts) <= 3 or not all(p.strip().isdigit() for p in parts):
        raise GraphSpecError(f"graph {spec!r}: expected rmat:SCALE[:EF[:SEED]] with integers")
    vals = [int(p) for p in parts]
    scale = vals[0]
    ef = vals[1] if len(vals) > 1 else 16
    seed = vals[2] if len(vals) > 2 else 1
    if not 1 <= scale <= 31 or ef < 1:
        raise GraphSpecError(f"graph {spec!r}: scale must be 1..31 and edge factor >= 1")
    return scale, ef, seed


def check_graph_spec(spec: str, data_dir: str | Path | None = None) -> None:
    """Raise GraphSpecError now for an argument `load_graph` would reject, without loading it."""
    if spec.startswith("rmat:"):
        parse_rmat(spec)
    elif not Path(spec).is_file() and real_graph_path(spec, data_dir) is None:
        where = ", ".join(str(d) for d in ([Path(data_dir)] if data_dir else data_dirs()))
        raise GraphSpecError(f"graph {spec!r}: not an RMAT spec, a file, or a real graph in {where}")


def load_graph(spec: str, data_dir: str | Path | None = None, *, gpu: bool = False) -> BenchGraph:
    """Resolve one graph argument: an RMAT spec, a real graph's name, or an edge file's path;
    `gpu` generates RMAT on the CUDA device (the same edges, `rmat_edges`)."""
    if spec.startswith("rmat:"):
        scale, ef, seed = parse_rmat(spec)
        from deltamatch.bench.rmat import rmat_edges

        edges = rmat_edges(scale, edge_factor=ef, seed=seed, gpu=gpu)  # simple, u < v, in generation order
        return BenchGraph(f"rmat-{scale}-{ef}-{seed}", "rmat", edges, scale, ef, seed)
    check_graph_spec(spec, data_dir)
    path, kind = Path(spec), "file"
    if not path.is_file():
        path, kind = real_graph_path(spec, data_dir), "real"
    from deltamatch.io.readers import read_edges

    name = path.name
    for suffix in DATA_SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return BenchGraph(name, kind, simple_edges(read_edges(str(path))))
