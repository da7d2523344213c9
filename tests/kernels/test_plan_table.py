"""The plain-array containers the engines read (kernels/plan_table.py)."""

from __future__ import annotations

import numpy as np

from deltamatch.kernels.plan_table import BatchView, memo_plans
from deltamatch.scheduler.patterns import parse_pattern
from deltamatch.scheduler.plans import compile_plans, shared_plans


def test_batch_view_gives_back_its_pairs_once_with_their_ranks() -> None:
    pairs = np.array([[4, 1], [2, 9], [1, 2], [9, 4]], dtype=np.int32)
    view = BatchView.of_pairs(pairs, np.full(10, -1, dtype=np.int32))
    a, b, rank = view.pairs()
    got = sorted(zip(a.tolist(), b.tolist(), rank.tolist(), strict=True))
    assert got == [(1, 2, 2), (1, 4, 0), (2, 9, 1), (4, 9, 3)]


def test_memo_plans_are_the_plans_whose_last_level_depends_on_k_minus_2_and_the_seed_only():
    house, cycle = parse_pattern("house"), parse_pattern("5-cycle")
    assert memo_plans(compile_plans(house, shared_plans(house))).tolist() == [0, 0, 1, 0, 0, 1]
    assert memo_plans(compile_plans(cycle, shared_plans(cycle))).tolist() == [1]
    for name in ("house", "5-cycle"):  # induced: every level depends on every earlier position
        p = parse_pattern(name, induced=True)
        assert not memo_plans(compile_plans(p, shared_plans(p))).any()
    for name in ("triangle", "4-cycle", "diamond", "4-clique"):
        p = parse_pattern(name)
        assert not memo_plans(compile_plans(p, shared_plans(p))).any()
