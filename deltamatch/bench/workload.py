"""PGMiner's workload: load a fraction of the edges, stream the rest in batches, deletions optional."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Batch:
    """One update batch: pairs to insert and pairs to delete (int64 (n, 2), u < v)."""

    insert: np.ndarray
    delete: np.ndarray

    @property
    def size(self) -> int:
        return int(self.insert.shape[0] + self.delete.shape[0])


@dataclass(frozen=True)
class Workload:
    """The edges loaded up front and the batches streamed after them, in order."""

    initial: np.ndarray
    batches: list[Batch] = field(default_factory=list)
    stream_batches: int = 0  # batches the whole stream would take (before --max-batches)

    @property
    def updates(self) -> int:
        return sum(b.size for b in self.batches)


def make_workload(edges: np.ndarray, *, load_fraction: float = 0.9, batch_size: int = 1000,
                  delete_fraction: float = 0.0, shuffle: int | None = None,
                  max_batches: int | None = None, seed: int = 0) -> Workload:
    """Split `edges` (file order, or permuted by `shuffle` as a seed) into a load and batches.

    Each batch holds `batch_size` updates: round(delete_fraction * batch_size) deletions of
    edges present at that point (uniform, from `seed`) and the next stream edges as insertions.
    """
    if not 0.0 <= load_fraction <= 1.0:
        raise ValueError(f"load_fraction must be in [0, 1], got {load_fraction}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    if not 0.0 <= delete_fraction < 1.0:
        raise ValueError(f"delete_fraction must be in [0, 1), got {delete_fraction}")
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if shuffle is not None:
        edges = edges[np.random.default_rng(shuffle).permutation(edges.shape[0])]
    n_load = int(round(load_fraction * edges.shape[0]))
    initial, stream = edges[:n_load], edges[n_load:]
    n_del = int(round(delete_fraction * batch_size))
    n_ins = batch_size - n_del
    n_batches = -(-stream.shape[0] // n_ins) if stream.shape[0] else 0
    keep = n_batches if max_batches is None else min(n_batches, max_batches)
    rng = np.random.default_rng(seed)
    present = np.empty_like(edges)
    present[:n_load] = initial
    size = n_load
    batches = []
    for b in range(keep):
        ins = stream[b * n_ins:(b + 1) * n_ins]
        d = min(n_del, size)
        chosen = rng.choice(size, d, replace=False) if d else np.zeros(0, dtype=np.int64)
        dels = present[chosen].copy()
        # Swap-remove: tail entries that survive fill the holes left below the new size.
        tail = np.arange(size - d, size)
        holes = chosen[chosen < size - d]
        present[holes] = present[tail[~np.isin(tail, chosen)]]
        size -= d
        present[size:size + ins.shape[0]] = ins
        size += ins.shape[0]
        batches.append(Batch(ins, dels))
    return Workload(initial, batches, n_batches)
