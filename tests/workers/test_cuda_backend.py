"""The GPU load-balance switches read from the environment (no GPU needed)."""

from __future__ import annotations

import pytest

from deltamatch.kernels.cuda_engine import Balance
from deltamatch.workers.cuda_backend import balance_from_env


def test_everything_is_on_by_default() -> None:
    assert balance_from_env({}) == Balance()


def test_split_zero_turns_deferral_off_and_a_number_fixes_the_chunk() -> None:
    assert balance_from_env({"DELTAMATCH_GPU_SPLIT": "0"}) == Balance(split=False)
    assert balance_from_env({"DELTAMATCH_GPU_SPLIT": "256"}) == Balance(chunk=256)


def test_unroll_switch() -> None:
    assert balance_from_env({"DELTAMATCH_GPU_UNROLL": "0"}) == Balance(unroll=False)


def test_steal_switch() -> None:
    assert balance_from_env({"DELTAMATCH_GPU_STEAL": "0"}) == Balance(steal=False)


@pytest.mark.parametrize("env", [{"DELTAMATCH_GPU_SPLIT": "-1"}, {"DELTAMATCH_GPU_SPLIT": "many"},
                                 {"DELTAMATCH_GPU_UNROLL": "yes"}, {"DELTAMATCH_GPU_STEAL": "2"}])
def test_bad_values_are_refused(env: dict) -> None:
    with pytest.raises(ValueError, match="DELTAMATCH_GPU_"):
        balance_from_env(env)
