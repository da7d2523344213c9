"""Session 16: the pair work of the house's roof-edge plans (2 and 5) with and without a per-task
memo of their last level, counted on the host for one RMAT batch of 1,000 inserts.

A roof-edge task (m0, m1) walks level 2 = N(m0) & N(m1), level 3 = N(m2) less the seed, and ends in
N(m0) & N(m3), whose pair list walks the shorter of the two rows.  Without a memo that is
min(deg m0, deg m3) pairs per (m2, m3); with one, per distinct m3 of the task, plus one entry per
(m2, m3) to count how many prefixes meet it; and with a table flushed whenever it holds as many
distinct m3 as 1, 2, 4 or 8 times the widest row (match_memo's per-warp table holds 4 times).
Both seed orientations (plans 2 and 5).

    .venv/bin/python bench/results/gpu-2026-12-04-session16/memo_estimate.py 18
"""

from __future__ import annotations

import sys
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from deltamatch.bench.rmat import rmat_edges  # noqa: E402


def csr(edges: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(ptr, dst) of the simple undirected graph of `edges`, rows sorted."""
    a = np.concatenate([edges[:, 0], edges[:, 1]])
    b = np.concatenate([edges[:, 1], edges[:, 0]])
    keys = np.unique(a * n + b)
    src, dst = keys // n, keys % n
    ptr = np.zeros(n + 1, np.int64)
    np.add.at(ptr, src + 1, 1)
    return np.cumsum(ptr), dst


def loaded_batch(scale: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(ptr, dst, batch, n): RMAT `scale`'s first 90% of edges plus the batch of the 1,000 after
    them, as the graph a batch's new side is counted on, and that batch."""
    edges = rmat_edges(scale).astype(np.int64)
    n = 1 << scale
    cut = int(0.9 * edges.shape[0])
    ptr, dst = csr(edges[: cut + 1000], n)
    return ptr, dst, edges[cut : cut + 1000], n


@numba.njit
def common(ptr, dst, u, v):
    out = []
    i, j = ptr[u], ptr[v]
    while i < ptr[u + 1] and j < ptr[v + 1]:
        if dst[i] < dst[j]:
            i += 1
        elif dst[i] > dst[j]:
            j += 1
        else:
            out.append(dst[i])
            i += 1
            j += 1
    return out


@numba.njit
def pair_work(ptr, dst, batch, n, capacity):
    """Per task: (pairs without a memo, pairs over its distinct m3, (m2, m3) entries, distinct m3,
    level-2 vertices, pairs over the distinct m3 of each fill of a table flushed at `capacity`
    distinct keys, as match_memo's per-warp table is at the graph's widest row)."""
    deg = ptr[1:] - ptr[:-1]
    tasks = 2 * batch.shape[0]
    out = np.zeros((6, tasks), np.int64)
    seen = np.full(n, -1, np.int64)
    filled = np.full(n, -1, np.int64)
    fill = 0
    for t in range(tasks):
        m0 = batch[t % batch.shape[0], t // batch.shape[0]]
        m1 = batch[t % batch.shape[0], 1 - t // batch.shape[0]]
        level2 = common(ptr, dst, m0, m1)
        out[4, t] = len(level2)
        fill += 1
        held = 0
        for m2 in level2:
            for i in range(ptr[m2], ptr[m2 + 1]):
                m3 = dst[i]
                if m3 in (m0, m1):
                    continue
                pairs = min(deg[m0], deg[m3])
                out[0, t] += pairs
                out[2, t] += 1
                if seen[m3] != t:
                    seen[m3] = t
                    out[1, t] += pairs
                    out[3, t] += 1
                if held == capacity:
                    fill += 1
                    held = 0
                if filled[m3] != fill:
                    filled[m3] = fill
                    out[5, t] += pairs
                    held += 1
    return out


def main() -> None:
    scale = int(sys.argv[1]) if len(sys.argv) > 1 else 18
    ptr, dst, batch, n = loaded_batch(scale)
    widest = int((ptr[1:] - ptr[:-1]).max())
    for factor in (1, 2, 4, 8):
        walked, memo, entries, distinct, level2, flushed = pair_work(ptr, dst, batch, n, factor * widest)
        if factor == 1:
            print(f"rmat {scale}: pairs now {walked.sum():.3e}, memo {memo.sum():.3e} + multiplicity "
                  f"pass {entries.sum():.3e}: ratio {walked.sum() / (memo.sum() + entries.sum()):.1f}x")
            beyond = int((distinct > widest).sum())
            print(f"per task: level 2 at most {level2.max()}, entries at most {entries.max():.3e} "
                  f"({100 * entries.max() / entries.sum():.1f}% of all), distinct m3 at most "
                  f"{distinct.max()}, beyond the widest row ({widest}) in {beyond} of {distinct.size} tasks")
        ratio = walked.sum() / (flushed.sum() + entries.sum())
        print(f"table of {factor} x {widest} keys: memo {flushed.sum():.3e} pairs, ratio {ratio:.1f}x; "
              f"largest task {flushed.max():.3e} pairs, {flushed.max() / flushed.mean():.1f}x the mean "
              f"(without a memo {walked.max():.3e})")


if __name__ == "__main__":
    main()
