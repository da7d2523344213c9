"""Pair sorting agrees with numpy's lexsort and unique (the slower forms it replaces)."""

from __future__ import annotations

import numpy as np

from deltamatch.kernels.pair_order import by_source, pair_keys, sorted_unique


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
