"""Pair sorting agrees with numpy's lexsort and unique (the slower forms it replaces)."""

from __future__ import annotations

import numpy as np
import pytest

from deltamatch.kernels.pair_order import by_source, pair_keys, sort_keys, sorted_unique
from deltamatch.kernels.plan_table import BatchView


def test_sorted_unique_equals_np_unique() -> None:
    rng = np.random.default_rng(1)
    keys = rng.integers(0, 50, size=400)
    np.testing.assert_array_equal(sorted_unique(keys), np.unique(keys))
    assert sorted_unique(keys[:0]).shape == (0,) and sorted_unique(keys[:1]).tolist() == keys[:1].tolist()


def test_by_source_is_lexsort_with_runs() -> None:
    rng = np.random.default_rng(2)
    src = rng.integers(0, 30, size=500).astype(np.int32)
    dst = rng.integers(0, 2**31 - 1, size=500).astype(np.int32)
    order, sources, starts = by_source(src, dst)
    np.testing.assert_array_equal(order, np.lexsort((dst, src)))
    want_sources, want_starts = np.unique(src, return_index=True)
    np.testing.assert_array_equal(sources, want_sources)
    np.testing.assert_array_equal(starts, np.searchsorted(src[order], want_sources))
    assert want_starts.shape == starts.shape


def test_pair_keys_order_by_first_then_second() -> None:
    a = np.array([2, 1, 1, 0], dtype=np.int32)
    b = np.array([0, 2**31 - 1, 5, 9], dtype=np.int32)
    assert np.argsort(pair_keys(a, b)).tolist() == [3, 2, 1, 0]


def test_batch_view_of_pairs_is_by_source_of_both_directions() -> None:
    """The compiled view equals the by_source form it replaced, repeated pairs included."""
    rng = np.random.default_rng(4)
    for n, high in ((0, 5), (1, 5), (300, 40), (300, 10**6)):
        pairs = rng.integers(0, high, size=(n, 2)).astype(np.int32)
        pairs = pairs[pairs[:, 0] != pairs[:, 1]]
        slot = np.full(max(high, 1), -1, np.int32)
        view = BatchView.of_pairs(pairs, slot)
        src = np.concatenate([pairs[:, 0], pairs[:, 1]])
        dst = np.concatenate([pairs[:, 1], pairs[:, 0]])
        ranks = np.arange(pairs.shape[0], dtype=np.int32)
        order, touched, starts = by_source(src, dst)
        want = np.full_like(slot, -1)
        want[touched] = np.arange(touched.shape[0])
        np.testing.assert_array_equal(view.slot, want)
        np.testing.assert_array_equal(view.ptr, np.append(starts, src.shape[0]))
        np.testing.assert_array_equal(view.partner, dst[order])
        np.testing.assert_array_equal(view.rank, np.concatenate([ranks, ranks])[order])
        slot[view.partner] = -1
        assert (slot == -1).all()


@pytest.mark.parametrize("top_bit", [0, 1, 11, 22, 53, 62])
@pytest.mark.parametrize("n", [0, 1, 2, 1000])
def test_sort_keys_equals_np_sort_over_every_digit_count(top_bit: int, n: int) -> None:
    rng = np.random.default_rng(top_bit * 1000 + n)
    keys = rng.integers(0, 2**top_bit + 1, size=n, dtype=np.int64)
    keys[: n // 3] = keys[n // 3 : 2 * (n // 3)]  # repeats
    got = keys.copy()
    sort_keys(got)
    np.testing.assert_array_equal(got, np.sort(keys))
