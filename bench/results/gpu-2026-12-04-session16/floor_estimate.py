"""Session 16: the pair work of the house's floor-edge plan (4) against its (m2, m3) candidates,
counted on the host for one RMAT batch of 1,000 inserts.

A floor-edge task (m0, m1) (the lower-degree endpoint at position 1, as the seed swap runs it)
walks level 2 = N(m1), level 3 = N(m0) & N(m2), and ends in N(m2) & N(m3), the common
neighbourhood of an edge: its pair list walks min(deg m2, deg m3) pairs per (m2, m3), where the
kept triangles (kept_count) would read one count per (m2, m3) and correct it.

    .venv/bin/python bench/results/gpu-2026-12-04-session16/floor_estimate.py 18
"""

from __future__ import annotations

import sys
from pathlib import Path

import numba

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memo_estimate import common, loaded_batch  # noqa: E402


@numba.njit
def floor_work(ptr, dst, batch):
    """(pairs the pair lists walk, (m2, m3) candidates, level-3 entries read)."""
    deg = ptr[1:] - ptr[:-1]
    pairs = 0
    candidates = 0
    level3 = 0
    for t in range(batch.shape[0]):
        a, b = batch[t, 0], batch[t, 1]
        m1, m0 = (a, b) if deg[a] < deg[b] else (b, a)
        for i in range(ptr[m1], ptr[m1 + 1]):
            m2 = dst[i]
            if m2 == m0:
                continue
            level3 += min(deg[m0], deg[m2])
            for m3 in common(ptr, dst, m0, m2):
                if m3 == m1:
                    continue
                candidates += 1
                pairs += min(deg[m2], deg[m3])
    return pairs, candidates, level3


def main() -> None:
    scale = int(sys.argv[1]) if len(sys.argv) > 1 else 18
    ptr, dst, batch, _ = loaded_batch(scale)
    pairs, candidates, level3 = floor_work(ptr, dst, batch)
    print(f"rmat {scale} floor plan: pairs {pairs:.3e}, (m2, m3) candidates {candidates:.3e} "
          f"({pairs / candidates:.0f} pairs each), level-3 entries {level3:.3e}")


if __name__ == "__main__":
    main()
