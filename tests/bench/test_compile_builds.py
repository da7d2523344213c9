"""bench/gpu/compile_builds.py: the match.cu builds a device call compiles before its tests."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "gpu"))

from compile_builds import every_build  # noqa: E402


def test_every_build_switch_is_compiled_flipped_either_way() -> None:
    """The default build, each switch on by default turned off and each off by default turned on,
    each with and without statistics, once."""
    builds = every_build()
    assert len(builds) == len(set(builds))
    for defines in [(), ("DM_PAIR_HASH=0",), ("DM_DRIVE_SHORT=0",), ("DM_PREFETCH_NEXT=1",),
                    ("DM_PAIR_HASH=0", "DM_PREFETCH_NEXT=1"), ("DM_MEMO_FACTOR=1",),
                    ("DM_WARPS_PER_BLOCK=8", "DM_WARPS_PER_SM=24"),
                    ("DM_WARPS_PER_BLOCK=8", "DM_WARPS_PER_SM=32"), ("DM_WARPS_PER_SM=36",),
                    ("DM_RANKED_TOUCHED=0",), ("DM_STAGED_LOOKUPS=1",)]:
        assert (False, defines) in builds and (True, defines) in builds
