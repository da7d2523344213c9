"""Delta streams: bounded retained history per pattern, cursor-based subscribers.

Each pattern keeps the events of its last `retention` versions (one per version, empty
deltas included).  A subscriber is a cursor (the last version it has seen): it reads
at most `buffer` events at a time from the shared history, so a slow subscriber holds
no queue that could grow and never blocks publishing.  A cursor that falls behind the
retained history gets one `reset` event (current version and total) and continues from
there: nothing is dropped without the subscriber being told.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import numpy as np


@dataclass
class DeltaEvent:
    """One pattern's delta at one version, listings capped by the scheduler."""

    version: int
    batch_id: str | None
    pattern_id: int
    added_count: int
    removed_count: int
    total: int
    added: np.ndarray
    removed: np.ndarray
    truncated: bool
    _cache: dict = field(default_factory=dict, repr=False)

    def data(self, matches: bool = True, max_matches: int | None = None) -> str:
        """The event's JSON data (SPEC §2.1), listings included when `matches`, at most `max_matches` each."""
        key = (matches, max_matches)
        if key not in self._cache:
            out = {"version": self.version, "batch_id": self.batch_id, "pattern_id": self.pattern_id,
                   "added_count": self.added_count, "removed_count": self.removed_count,
                   "total": self.total, "truncated": self.truncated}
            if matches:
                cap = max(self.added.shape[0], self.removed.shape[0]) if max_matches is None else max_matches
                out["added"] = self.added[:cap].tolist()
                out["removed"] = self.removed[:cap].tolist()
                capped = self.added.shape[0] > cap or self.removed.shape[0] > cap
                out["truncated"] = bool(self.truncated or capped)
            self._cache[key] = json.dumps(out, separators=(",", ":"))
        return self._cache[key]


@dataclass
class _History:
    first: int  # the lowest version a cursor may resume after (registration version)
    total: int
    version: int
    events: deque


@dataclass(frozen=True)
class StreamItem:
    """What a subscriber receives: `delta` (with `event`) or `reset` (with version and total)."""

    kind: str
    version: int
    event: DeltaEvent | None = None
    total: int = 0

    def data(self, matches: bool = True, max_matches: int | None = None) -> str:
        if self.kind == "reset":
            return json.dumps({"version": self.version, "total": self.total})
        return self.event.data(matches, max_matches)


class DeltaStream:
    """Every pattern's retained history and the wake-up signal for subscribers."""

    def __init__(self, retention: int = 1024, buffer: int = 256):
        self.retention = retention
        self.buffer = buffer
        self._hist: dict[int, _History] = {}
        self._changed = asyncio.Event()
        self.subscribers = 0
        self.resets_sent = 0

    def add_pattern(self, pattern_id: int, version: int, total: int) -> None:
        """Start a pattern's history: cursors at `version` or later are in range."""
        self._hist[pattern_id] = _History(version, total, version, deque(maxlen=self.retention))

    def sync(self, patterns: list[tuple[int, int, int]]) -> None:
        """Take the scheduler's (pattern id, version, total) after a (re)start: a history that
        matches is kept; one that does not (a batch logged but never answered) starts over, so
        its subscribers get a `reset`; patterns no longer registered are dropped."""
        known = {pid for pid, _, _ in patterns}
        for pid in [p for p in self._hist if p not in known]:
            del self._hist[pid]
        for pid, version, total in patterns:
            h = self._hist.get(pid)
            if h is None or (h.version, h.total) != (version, total):
                self.add_pattern(pid, version, total)
        self._wake()

    def remove_pattern(self, pattern_id: int) -> None:
        self._hist.pop(pattern_id, None)
        self._wake()

    def has(self, pattern_id: int) -> bool:
        return pattern_id in self._hist

    def current(self, pattern_id: int) -> tuple[int, int]:
        h = self._hist[pattern_id]
        return h.version, h.total

    def publish(self, events: list[DeltaEvent]) -> None:
        """Append one batch's events (one per pattern, in version order)."""
        for e in events:
            h = self._hist.get(e.pattern_id)
            if h is None or e.version <= h.version:
                continue
            h.events.append(e)
            h.version, h.total = e.version, e.total
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def read(self, pattern_id: int, cursor: int) -> list[StreamItem] | None:
        """Up to `buffer` items after `cursor`; None once the pattern is gone."""
        h = self._hist.get(pattern_id)
        if h is None:
            return None
        if cursor >= h.version:
            return []
        oldest = h.events[0].version if h.events else h.version + 1
        if cursor < h.first or cursor < oldest - 1:
            self.resets_sent += 1
            return [StreamItem("reset", h.version, total=h.total)]
        start = cursor - oldest + 1
        if start < 0 or h.events[start].version != cursor + 1:
            # versions are contiguous per pattern; fall back to a scan if not
            return [StreamItem("delta", e.version, e) for e in h.events if e.version > cursor][: self.buffer]
        return [StreamItem("delta", h.events[i].version, h.events[i])
                for i in range(start, min(start + self.buffer, len(h.events)))]

    async def subscribe(self, pattern_id: int, cursor: int | None,
                        keepalive: float) -> AsyncIterator[StreamItem | None]:
        """Items after `cursor` (None: from now), then live ones; None when idle `keepalive` s."""
        if cursor is None:
            cursor = self._hist[pattern_id].version if pattern_id in self._hist else 0
        self.subscribers += 1
        try:
            while True:
                waiter = self._changed
                items = self.read(pattern_id, cursor)
                if items is None:
                    return
                for item in items:
                    cursor = item.version
                    yield item
                if items:
                    continue
                try:
                    await asyncio.wait_for(waiter.wait(), keepalive)
                except asyncio.TimeoutError:
                    yield None
        finally:
            self.subscribers -= 1
