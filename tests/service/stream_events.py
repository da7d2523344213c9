"""Test helper: read a pattern's stream from the start into a list, up to a version."""

from __future__ import annotations

from deltamatch.service.client import DeltamatchClient


def collect(url: str, pid: int, until: int, out: list) -> None:
    """Append every event of pattern `pid`'s stream (from version 0) to `out`, stopping after
    the first event at or past version `until` (run it in a thread beside the writes)."""
    with DeltamatchClient(url) as c:
        for ev in c.deltas(pid, since=0):
            out.append(ev)
            if ev["version"] >= until:
                return
