"""The slack-row layout policy, shared by the host and device graphs (run here on numpy)."""

from __future__ import annotations

import numpy as np
import pytest

from deltamatch.kernels import row_layout
from deltamatch.kernels.row_layout import DEVICE, HOST, RowLayout


def test_round_up_on_ints_and_arrays() -> None:
    assert row_layout.round_up(0, 32) == 0 and row_layout.round_up(33, 32) == 64
    assert row_layout.round_up(np.array([1, 32, 65]), 32).tolist() == [32, 32, 96]


def test_fresh_capacity_is_a_quarter_of_slack_plus_two() -> None:
    got = row_layout.fresh_capacity(np.array([0, 3, 8, 100], dtype=np.int32), np)
    assert got.dtype == np.int32 and got.tolist() == [2, 5, 12, 127]


@pytest.mark.parametrize("layout, want", [(HOST, [4, 4, 6, 200]), (DEVICE, [32, 32, 32, 224])])
def test_moved_capacity_doubles_with_a_floor_and_rounds_to_the_block(layout: RowLayout, want: list) -> None:
    got = [row_layout.moved_capacity(d, layout.block, layout.min_capacity) for d in (0, 2, 3, 100)]
    assert got == want


def test_relocate_keeps_fitting_rows_and_appends_the_others_in_row_order() -> None:
    offsets = np.array([0, 10, 20], dtype=np.int64)
    capacity = np.array([10, 10, 5], dtype=np.int32)
    new_offsets, new_capacity, used, moved, grown = row_layout.relocate(
        offsets, capacity, np.array([11, 10, 6]), 40, HOST)
    assert new_offsets.tolist() == [40, 10, 62] and new_capacity.tolist() == [22, 10, 12]
    assert (used, moved, grown) == (74, 2, (22 - 10) + (12 - 5))


def test_relocate_on_the_device_layout_hands_out_whole_blocks() -> None:
    new_offsets, new_capacity, used, moved, _ = row_layout.relocate(
        np.array([0, 32], dtype=np.int64), np.array([32, 32], dtype=np.int32), np.array([33, 40]), 64,
        DEVICE)
    assert new_offsets.tolist() == [64, 160] and new_capacity.tolist() == [96, 96] and used == 256
    assert moved == 2 and all(x % DEVICE.block == 0 for x in (*new_offsets.tolist(), used))


def test_relocate_with_nothing_touched() -> None:
    empty = np.zeros(0, dtype=np.int64)
    _, _, used, moved, grown = row_layout.relocate(empty, empty.astype(np.int32), empty, 7, HOST)
    assert (used, moved, grown) == (7, 0, 0)


@pytest.mark.parametrize("layout", [HOST, DEVICE], ids=["host", "device"])
def test_packed_rows_are_contiguous_with_fresh_slack(layout: RowLayout) -> None:
    degree = np.array([3, 0, 40, 7], dtype=np.int32)
    offsets, capacity, live, used, size = row_layout.packed(degree, layout, np)
    assert capacity.tolist() == [5, 2, 52, 10] and offsets.tolist() == [0, 5, 7, 59]
    assert live == 69 and used == row_layout.round_up(69, layout.block) and size >= max(used, layout.min_pool)


def test_packed_empty_graph() -> None:
    offsets, capacity, live, used, size = row_layout.packed(np.zeros(0, dtype=np.int32), HOST, np)
    assert offsets.shape == capacity.shape == (0,) and (live, used, size) == (0, 0, HOST.min_pool)


def test_growth_rules() -> None:
    assert row_layout.grown_pool_size(1000, 100) == 1250 and row_layout.grown_pool_size(10, 100) == 200
    assert row_layout.grown_vertex_rows(5, 0) == 1024 and row_layout.grown_vertex_rows(3000, 2000) == 4000


def test_compaction_once_more_than_half_is_dead() -> None:
    assert not row_layout.needs_compaction(2 * 1000 + row_layout.COMPACTION_SLACK, 1000)
    assert row_layout.needs_compaction(2 * 1000 + row_layout.COMPACTION_SLACK + 1, 1000)


def test_layout_constants_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        RowLayout(block=0, min_capacity=4, min_pool=1)
