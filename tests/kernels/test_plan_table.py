"""The plain-array containers the engines read (kernels/plan_table.py)."""

from __future__ import annotations

import numpy as np

from deltamatch.kernels.plan_table import BatchView


def test_batch_view_gives_back_its_pairs_once_with_their_ranks() -> None:
    pairs = np.array([[4, 1], [2, 9], [1, 2], [9, 4]], dtype=np.int32)
    view = BatchView.of_pairs(pairs, np.full(10, -1, dtype=np.int32))
    a, b, rank = view.pairs()
    got = sorted(zip(a.tolist(), b.tolist(), rank.tolist(), strict=True))
    assert got == [(1, 2, 2), (1, 4, 0), (2, 9, 1), (4, 9, 3)]
