"""`cuda_engine`'s steps that run on the host alone (no GPU needed)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from deltamatch.kernels import cuda_engine
from deltamatch.kernels.plan_table import TaskList
from deltamatch.scheduler.patterns import BUILTIN_PATTERNS, parse_pattern
from deltamatch.scheduler.plans import compile_plans, shared_plans, static_plan


def test_host_heavy_first_orders_by_decreasing_lesser_degree_ties_in_task_order() -> None:
    rng = np.random.default_rng(3)
    degree = rng.integers(0, 8, size=50).astype(np.int32)  # few degrees: many ties
    n = 500
    tasks = TaskList(rng.integers(0, 50, n).astype(np.int32), rng.integers(0, 50, n).astype(np.int32),
                     np.arange(n, dtype=np.int32), np.zeros(n, dtype=np.int32))
    lesser = np.minimum(degree[tasks.u], degree[tasks.v])
    want = np.lexsort((np.arange(n), -lesser))  # by decreasing lesser degree, then task index
    np.testing.assert_array_equal(cuda_engine.host_heavy_first(degree, tasks), want)


@pytest.mark.parametrize("n", [2, 3, 500, cuda_engine.HOST_ORDER_MAX_TASKS])
def test_packed_tasks_hold_the_columns_and_the_heavy_first_order(n: int) -> None:
    """`_pack_heavy_first` writes what the upload of the four int32 columns and the heavy-first
    order (by decreasing lesser degree, ties in task order) would: the same bytes at the same places
    (the padding between them aside)."""
    rng = np.random.default_rng(n)
    degree = rng.integers(0, 70_000, size=300).astype(np.int32)
    degree[:290] %= 9  # many ties, and a few hubs
    tasks = TaskList(*(rng.integers(0, 300, n).astype(np.int32) for _ in range(2)),
                     rng.integers(-1, 1000, n).astype(np.int32), rng.integers(0, 4, n).astype(np.int32))
    lesser = np.minimum(degree[tasks.u], degree[tasks.v])
    arrays = (*tasks, np.lexsort((np.arange(n), -lesser)).astype(np.int64))
    starts = cuda_engine._byte_starts([a.nbytes for a in arrays])
    want, got = np.zeros(starts[-1], np.uint8), np.ones(starts[-1], np.uint8)
    cuda_engine._pack(want, arrays, starts)
    heavy = cuda_engine._pack_heavy_first(degree, *tasks, got, np.asarray(starts, dtype=np.int64), 9)
    assert heavy == int((lesser >= 9).sum())
    for a, start in zip(arrays, starts, strict=False):
        np.testing.assert_array_equal(got[start : start + a.nbytes], want[start : start + a.nbytes])


def test_heavy_tasks_stop_before_their_sources_pass_the_pieces_share_of_the_arena() -> None:
    """`_leading_heavy` leaves a heavy task to phase 0 once the heavy tasks' greater degrees, which
    bound their level-2 sources, would pass PIECE_ARENA_INTS: the pieces cannot fill the arena."""
    hub = 1 << 20
    degree = np.array([hub, hub // 2], dtype=np.int32)
    u, v = np.zeros(100, dtype=np.int32), np.ones(100, dtype=np.int32)
    order = np.arange(100, dtype=np.int64)
    assert cuda_engine._leading_heavy(degree, u, v, order, 9) == cuda_engine.PIECE_ARENA_INTS // hub
    assert cuda_engine._leading_heavy(degree, u, v, order, hub) == 0


@pytest.mark.parametrize("induced", [False, True])
@pytest.mark.parametrize("name", sorted(BUILTIN_PATTERNS))
def test_seed_pieces_need_every_task_to_store_its_level_two_set(name: str, induced: bool) -> None:
    """walks_level_two: the triangle ends at level 2, and the edge-induced diamond's and 3-star's
    tables have a k = 4 LAST_PAIRS plan (counted from the set's size); every other built-in stores
    its level-2 set in every plan, its batch table and its static one alike."""
    pattern = parse_pattern(name, induced=induced)
    want = not (name == "triangle" or (not induced and name in ("diamond", "3-star")))
    for plans in (shared_plans(pattern), [static_plan(pattern)]):
        assert cuda_engine.walks_level_two(compile_plans(pattern, plans)) == want


MATCH_KERNELS = ["match_tasks", "match_shared", "match_flat", "match_pieces", "match_memo",
                 "match_memo_shared"]


@pytest.mark.parametrize("function", MATCH_KERNELS)
def test_each_match_kernel_is_looked_up_in_the_unit_that_defines_it(function: str) -> None:
    """match_unit: the memo's kernels in match_memo.cu, the others in match.cu, each in one unit only."""
    def defines(unit: str) -> bool:
        source = (cuda_engine.KERNEL_DIR / unit).read_text()
        return re.search(rf"\b{function}\(DM_MATCH_PARAMS\) \{{", source) is not None

    assert [unit for unit in cuda_engine.MATCH_UNITS if defines(unit)] == [cuda_engine.match_unit(function)]


@pytest.mark.parametrize("degree", [1, 9, 17, 1000, 64_831, 65_536, 65_537, 162_661])
def test_scratch_width_covers_the_degree_within_an_eighth_in_few_steps(degree: int) -> None:
    width = cuda_engine.scratch_width(degree)
    assert degree <= width <= degree + degree // 8 + 1
    # a batch that raises the degree up to the width keeps the width (and the scratch's size)
    assert cuda_engine.scratch_width(width) == width
    assert cuda_engine.scratch_width(min(degree + 1, width)) == width


def test_memo_scratch_width_is_a_power_of_two_above_the_least() -> None:
    assert cuda_engine.scratch_width(5, memo=True) == cuda_engine.MEMO_MIN_WIDTH
    assert cuda_engine.scratch_width(64_831, memo=True) == 65_536
    assert cuda_engine.scratch_width(65_537, memo=True) == 131_072


def test_degrees_of_one_step_share_a_scratch_width() -> None:
    widths = {cuda_engine.scratch_width(d) for d in range(61_441, 65_537)}
    assert widths == {65_536}


@pytest.mark.parametrize(("warps", "per_block"), [(24, 8), (28, 4), (32, 8), (36, 4)])
def test_a_build_launches_blocks_of_its_own_warps(warps: int, per_block: int) -> None:
    """`Balance.warps_per_sm`'s builds name their block (match_body.cuh's DM_WARPS_PER_BLOCK), and a
    launch of one is that many warps a block."""
    defines = cuda_engine.Balance(warps_per_sm=warps).defines()
    assert cuda_engine.block_warps(defines) == per_block
    launch = cuda_engine.Launch(blocks=10, chunk=1, warps_per_block=per_block)
    assert (launch.warps, launch.threads) == (10 * per_block, 32 * per_block)


@pytest.mark.parametrize("warps", [24, 28, 32, 36])
def test_formula_kernels_keep_their_own_block_whatever_the_match_build(warps: int) -> None:
    """formulas.cu's kernels are launched in blocks of its DM_FORMULA_WARPS, whatever block the
    match kernels' build takes (the default's is 4)."""
    defines = cuda_engine.Balance(warps_per_sm=warps).defines()
    per_block = cuda_engine.block_warps(defines, "formulas.cu")
    assert per_block == cuda_engine.FORMULA_WARPS_PER_BLOCK
    source = (cuda_engine.KERNEL_DIR / "formulas.cu").read_text()
    assert f"#define DM_FORMULA_WARPS {per_block}\n" in source
