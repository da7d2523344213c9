"""DeltaStream: bounded history, cursor reads in bounded chunks, resets, and a slow reader never blocks."""

from __future__ import annotations

import asyncio
import json

import numpy as np

from deltamatch.service.streams import DeltaEvent, DeltaStream


def _event(version: int, pid: int = 1, added: int = 0) -> DeltaEvent:
    rows = np.arange(added * 3).reshape(-1, 3)
    none = np.zeros((0, 3), np.int64)
    return DeltaEvent(version, f"b{version}", pid, added, 0, 10 + version, rows, none, False)


def test_history_is_bounded_and_an_old_cursor_gets_reset():
    s = DeltaStream(retention=4, buffer=100)
    s.add_pattern(1, 0, 0)
    for v in range(1, 11):
        s.publish([_event(v)])
    assert [i.version for i in s.read(1, 6)] == [7, 8, 9, 10]
    (reset,) = s.read(1, 5)
    assert reset.kind == "reset" and json.loads(reset.data()) == {"version": 10, "total": 20}


def test_cursor_before_registration_gets_reset():
    s = DeltaStream()
    s.add_pattern(1, 5, 3)
    s.publish([_event(6)])
    assert s.read(1, 4)[0].kind == "reset"
    assert [i.version for i in s.read(1, 5)] == [6]


def test_reads_come_in_chunks_of_at_most_the_buffer():
    s = DeltaStream(retention=100, buffer=3)
    s.add_pattern(1, 0, 0)
    s.publish([_event(v) for v in range(1, 9)])
    assert [i.version for i in s.read(1, 0)] == [1, 2, 3]
    assert [i.version for i in s.read(1, 3)] == [4, 5, 6]


def test_event_data_caps_listings_and_keeps_counts():
    e = _event(1, added=5)
    full = json.loads(e.data())
    capped = json.loads(e.data(max_matches=2))
    bare = json.loads(e.data(matches=False))
    assert len(full["added"]) == 5 and full["truncated"] is False
    assert len(capped["added"]) == 2 and capped["truncated"] is True and capped["added_count"] == 5
    assert "added" not in bare and bare["added_count"] == 5


def test_a_stalled_subscriber_does_not_block_publishing():
    async def scenario():
        s = DeltaStream(retention=8, buffer=2)
        s.add_pattern(1, 0, 0)
        sub = s.subscribe(1, 0, keepalive=0.05)
        s.publish([_event(1)])
        first = await sub.__anext__()  # then this subscriber stops reading
        for v in range(2, 50):
            s.publish([_event(v)])  # returns at once: nothing is queued per subscriber
        nxt = await sub.__anext__()
        await sub.aclose()
        return first, nxt, s.subscribers
    first, nxt, left = asyncio.run(scenario())
    assert first.version == 1
    assert nxt.kind == "reset" and nxt.version == 49  # told it fell behind the 8 retained events
    assert left == 0


def test_idle_subscriber_gets_keepalives_and_ends_when_the_pattern_goes():
    async def scenario():
        s = DeltaStream()
        s.add_pattern(1, 0, 0)
        sub = s.subscribe(1, None, keepalive=0.01)
        idle = await sub.__anext__()
        s.remove_pattern(1)
        rest = [item async for item in sub]
        return idle, rest
    idle, rest = asyncio.run(scenario())
    assert idle is None and rest == []


def test_sync_after_a_restart_keeps_matching_histories_and_resets_moved_ones():
    s = DeltaStream(retention=8)
    for pid in (1, 2, 3):
        s.add_pattern(pid, 0, 0)
        s.publish([_event(1, pid)])
    s.sync([(1, 1, 11), (2, 2, 7)])  # 2 moved on without an event; 3 is gone
    assert [i.kind for i in s.read(1, 0)] == ["delta"]
    assert [(i.kind, i.version, i.total) for i in s.read(2, 1)] == [("reset", 2, 7)]
    assert not s.has(3)
