"""Engine names: every ablation suffix selects its switch, on every base engine."""

from __future__ import annotations

import pytest

from deltamatch.bench.engine_names import ABLATION_PAIRS, ENGINES, INCREMENTAL, EngineVariant, engine_variant


@pytest.mark.parametrize(
    "name, variant",
    [
        ("cpu-1", EngineVariant("cpu", False, True, True)),
        ("cpu-all-noshare", EngineVariant("cpu", True, False, True)),
        ("gpu-nohoist", EngineVariant("cuda", True, True, False)),
        ("cpu-1-nohoist", EngineVariant("cpu", False, True, False)),
        ("cpu-1-noset", EngineVariant("cpu", False, True, True, set_count=False)),
        ("cpu-all-noswap", EngineVariant("cpu", True, True, True, seed_swap=False)),
        ("cpu-1-nobits", EngineVariant("cpu", False, True, True, seed_bits=False)),
        ("cpu-1-nodrive", EngineVariant("cpu", False, True, True, drive_short=False)),
        ("cpu-all-nomemo", EngineVariant("cpu", True, True, True, last_memo=False)),
        ("cpu-1-norev", EngineVariant("cpu", False, True, True, reverse_last=False)),
        ("cpu-1-noreuse", EngineVariant("cpu", False, True, True, reuse_level2=False)),
        ("cpu-1-nofuse", EngineVariant("cpu", False, True, True, fuse_last=False)),
    ],
)
def test_engine_variant_switches(name, variant):
    assert engine_variant(name) == variant


def test_every_ablation_is_an_engine_compared_with_its_base():
    for ablation, base in ABLATION_PAIRS:
        assert {ablation, base} <= set(INCREMENTAL) <= set(ENGINES)
        assert engine_variant(ablation)[:2] == engine_variant(base)[:2]
