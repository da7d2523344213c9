"""The durable state of the service: an append-only record log plus periodic snapshots.

Layout of the data directory:
- `log-<seq>.bin`: records, each `MAGIC | header length | payload length | crc32`,
  a JSON header, then the payload (the insert and delete pairs as little-endian int64
  engine ids).  A batch of string vertex names (SPEC §1) carries the names it added to
  the code table, in code order, in its header's `names`, and every batch its graph's
  `vertex_kind`.
  A record is fsynced before `append` returns, so an acknowledged batch survives a crash.
  A failed append (disk full, I/O error) cuts its partial bytes off again at once and
  raises `LogWriteError`; a torn record at the tail (a crash mid-write) fails its length
  or CRC check and is cut off on open, since it was never acknowledged.  A bad record
  followed by intact ones is not a torn tail but damage: opening stops with
  `LogCorruptError` naming the offset, unless `repair` keeps a copy and cuts it there.
- `snapshot-<version>.npz`: the graph (external ids in internal order, edges as external
  pairs), the string names in code order, and a JSON `meta` entry: version, next log
  segment, patterns, totals, batch_id index, vertex kind.  Written to a temporary name,
  fsynced, then renamed; older snapshots and the log segments they cover are deleted
  afterwards.

Record kinds: `batch` and `load` (version, batch_id, answer, pairs), `register`
(pattern id and spec), `unregister` (pattern id).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
import struct
import time
import zlib
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

MAGIC = b"DMLG"
_HEAD = struct.Struct("<4sIQI")
WRITER_LOCK = "WRITER.LOCK"


class LogWriteError(OSError):
    """An append that did not become durable; the log is as it was before the append."""


class LogCorruptError(RuntimeError):
    """A damaged record with intact records after it: not a torn tail, so not cut silently."""


@dataclass
class Record:
    """One log record: its JSON header and, for batches, the raw pairs."""

    header: dict
    insert: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    delete: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))

    @property
    def kind(self) -> str:
        return self.header["kind"]


@dataclass
class Snapshot:
    """A consistent image of the service at `version`."""

    version: int = 0
    external: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    edges: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    patterns: dict[int, dict] = field(default_factory=dict)
    totals: dict[int, int] = field(default_factory=dict)
    batch_ids: dict[str, dict] = field(default_factory=dict)
    next_seq: int = 0
    names: list[str] = field(default_factory=list)  # string vertex names in code order
    vertex_kind: str | None = None  # "int", "str", or None before the first edge


@dataclass
class RecoveredState:
    """What replaying snapshot + log yields: the snapshot and the records after it, folded."""

    snapshot: Snapshot
    records: list[Record]
    version: int
    patterns: dict[int, dict]
    totals: dict[int, int]
    batch_ids: OrderedDict[str, dict]
    names: list[str] = field(default_factory=list)
    vertex_kind: str | None = None

    def batches(self) -> Iterator[Record]:
        """The batch and load records after the snapshot, in version order."""
        return (r for r in self.records if r.kind in ("batch", "load"))


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def encode_record(record: Record) -> bytes:
    """The on-disk bytes of a record (see module docstring)."""
    ins = np.ascontiguousarray(record.insert, dtype="<i8").reshape(-1, 2)
    dele = np.ascontiguousarray(record.delete, dtype="<i8").reshape(-1, 2)
    header = dict(record.header, n_insert=int(ins.shape[0]), n_delete=int(dele.shape[0]))
    head = json.dumps(header, separators=(",", ":")).encode()
    payload = ins.tobytes() + dele.tobytes()
    crc = zlib.crc32(payload, zlib.crc32(head))
    return _HEAD.pack(MAGIC, len(head), len(payload), crc) + head + payload


def _parse_record(data: bytes, pos: int) -> tuple[Record, int] | None:
    """The intact record starting at `pos` and the offset after it, or None."""
    if pos + _HEAD.size > len(data):
        return None
    magic, hlen, plen, crc = _HEAD.unpack_from(data, pos)
    end = pos + _HEAD.size + hlen + plen
    if magic != MAGIC or end > len(data):
        return None
    head = data[pos + _HEAD.size: pos + _HEAD.size + hlen]
    payload = data[pos + _HEAD.size + hlen: end]
    if zlib.crc32(payload, zlib.crc32(head)) != crc:
        return None
    header = json.loads(head)
    pairs = np.frombuffer(payload, dtype="<i8").reshape(-1, 2).astype(np.int64)
    n_ins = header["n_insert"]
    return Record(header, pairs[:n_ins], pairs[n_ins:]), end


def _next_intact(data: bytes, start: int) -> int | None:
    """The offset of the first intact record after `start`, or None when none follows."""
    pos = data.find(MAGIC, start + 1)
    while pos >= 0:
        if _parse_record(data, pos) is not None:
            return pos
        pos = data.find(MAGIC, pos + 1)
    return None


def read_segment(path: Path) -> tuple[list[Record], int]:
    """The intact records of one segment and the byte length they span.

    What follows them must be a torn tail (no intact record after it); otherwise
    raises `LogCorruptError` naming the offset of the first bad byte.
    """
    data = path.read_bytes()
    records, pos = [], 0
    while (parsed := _parse_record(data, pos)) is not None:
        records.append(parsed[0])
        pos = parsed[1]
    if pos < len(data) and (later := _next_intact(data, pos)) is not None:
        raise LogCorruptError(
            f"{path}: damaged record at byte offset {pos} is followed by intact records (the next at "
            f"offset {later}); refusing to drop them. Run `deltamatch serve --repair` to keep a copy of "
            f"the segment and cut the log at offset {pos}")
    return records, pos


def repair_segment(path: Path) -> tuple[Path, int] | None:
    """Cut `path` at its first damaged record, keeping the whole segment as `<name>.corrupt-<time>`
    beside it; returns (copy, offset), or None when the segment needs no repair."""
    try:
        read_segment(path)
        return None
    except LogCorruptError:
        pass
    data = path.read_bytes()
    pos = 0
    while (parsed := _parse_record(data, pos)) is not None:
        pos = parsed[1]
    copy = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}")
    shutil.copy2(path, copy)
    with open(path, "r+b") as f:
        f.truncate(pos)
        os.fsync(f.fileno())
    _fsync_dir(path.parent)
    return copy, pos


def lock_directory(directory: str | Path, timeout: float = 0.0, name: str = "LOCK"):
    """Hold an exclusive lock on `directory/name` (waiting up to `timeout` s); returns the open
    file, which holds the lock until closed or until the process dies."""
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    f = open(path / name, "a+b")  # noqa: SIM115 (held for the lock's lifetime)
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return f
        except BlockingIOError:
            if time.monotonic() > deadline:
                f.close()
                raise RuntimeError(f"{path} is in use by another deltamatch service") from None
            time.sleep(0.1)


class BatchLog:
    """Append-only, fsynced record log with snapshots in one directory (see module docstring).

    With `lock`, the log holds `WRITER.LOCK` in its directory while open, so a second
    writer (say, a restarted service while an orphaned one still runs) waits or fails.
    """

    def __init__(self, directory: str | Path, batch_id_retention: int = 100_000, lock: bool = True,
                 lock_timeout: float = 30.0):
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.batch_id_retention = batch_id_retention
        self.lock = lock
        self.lock_timeout = lock_timeout
        self._lock = None
        self._fd: int | None = None
        self._durable_size = 0  # bytes of the open segment known to be intact and fsynced
        self._torn = False  # a failed append left bytes after _durable_size that are not yet cut
        self.seq = 0
        self.bytes_since_snapshot = 0
        self.batches_since_snapshot = 0

    # reading ------------------------------------------------------------------
    def recover(self, repair: bool = False) -> RecoveredState:
        """Load the newest intact snapshot and fold every later record; cut torn tails.

        A damaged record followed by intact ones raises `LogCorruptError`, or with
        `repair` is cut off after copying the segment aside (`repair_segment`).  Leaves
        the log open for appending to a fresh segment and, when `lock`, the directory
        locked against a second writer (`WRITER_LOCK`).
        """
        if self.lock and self._lock is None:
            self._lock = lock_directory(self.dir, self.lock_timeout, WRITER_LOCK)
        snap = self._latest_snapshot()
        records: list[Record] = []
        for seq, path in self._segments():
            if seq < snap.next_seq:
                continue
            if repair:
                repair_segment(path)
            recs, good = read_segment(path)
            if good < path.stat().st_size:
                with open(path, "r+b") as f:
                    f.truncate(good)
                    f.flush()
                    os.fsync(f.fileno())
            records += recs
        patterns = dict(snap.patterns)
        totals = dict(snap.totals)
        batch_ids = OrderedDict(snap.batch_ids)
        version = snap.version
        names, vertex_kind = list(snap.names), snap.vertex_kind
        for rec in records:
            h = rec.header
            if rec.kind == "register":
                patterns[int(h["pattern_id"])] = h["pattern"]
            elif rec.kind == "unregister":
                patterns.pop(int(h["pattern_id"]), None)
                totals.pop(int(h["pattern_id"]), None)
            else:
                version = int(h["version"])
                names += h.get("names", [])
                vertex_kind = h.get("vertex_kind", vertex_kind)
                totals.update({int(k): int(v["total"]) for k, v in h["answer"]["deltas"].items()})
                if h.get("batch_id") is not None:
                    self._remember(batch_ids, h["batch_id"], h["answer"])
        self.bytes_since_snapshot = sum(len(encode_record(r)) for r in records)
        self.batches_since_snapshot = sum(1 for r in records if r.kind in ("batch", "load"))
        last = max([snap.next_seq - 1] + [s for s, _ in self._segments()])
        self._open_segment(last + 1)
        return RecoveredState(snap, records, version, patterns, totals, batch_ids, names, vertex_kind)

    def _segments(self) -> list[tuple[int, Path]]:
        found = []
        for p in self.dir.glob("log-*.bin"):
            try:
                found.append((int(p.stem.split("-")[1]), p))
            except ValueError:
                continue
        return sorted(found)

    def _snapshots(self) -> list[tuple[int, Path]]:
        found = []
        for p in self.dir.glob("snapshot-*.npz"):
            try:
                found.append((int(p.stem.split("-")[1]), p))
            except ValueError:
                continue
        return sorted(found)

    def _latest_snapshot(self) -> Snapshot:
        for _, path in reversed(self._snapshots()):
            try:
                with np.load(path, allow_pickle=False) as z:
                    meta = json.loads(bytes(z["meta"]).decode())
                    return Snapshot(
                        version=int(meta["version"]),
                        external=z["external"].astype(np.int64),
                        edges=z["edges"].astype(np.int64).reshape(-1, 2),
                        patterns={int(k): v for k, v in meta["patterns"].items()},
                        totals={int(k): int(v) for k, v in meta["totals"].items()},
                        batch_ids=dict(meta["batch_ids"]),
                        next_seq=int(meta["next_seq"]),
                        names=z["names"].tolist() if "names" in z else [],
                        vertex_kind=meta.get("vertex_kind"),
                    )
            except (OSError, ValueError, KeyError):
                continue
        return Snapshot()

    # writing ------------------------------------------------------------------
    def _open_segment(self, seq: int) -> None:
        """Switch appends to segment `seq`; on failure the current segment stays open."""
        if self._fd is not None:
            self._cut_torn_tail()
        fd = os.open(self.dir / f"log-{seq:08d}.bin", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            _fsync_dir(self.dir)
        except OSError:
            os.close(fd)
            raise
        self._close_segment()
        self._fd, self.seq = fd, seq
        self._durable_size = os.fstat(fd).st_size
        self._torn = False

    def _close_segment(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    @property
    def healthy(self) -> bool:
        """False while a failed append's partial bytes could not be cut off yet."""
        return not self._torn

    def append(self, record: Record) -> None:
        """Write one record and fsync it; returns only once it is durable.

        On any OS error (ENOSPC, EIO, EFBIG, ...) the partial record is cut off again
        and `LogWriteError` is raised: the log then reads exactly as before the call.
        Unbuffered writes, so no torn bytes linger in a buffer to reach the disk later.
        """
        if self._fd is None:
            raise RuntimeError("BatchLog.recover() must run before append()")
        data = encode_record(record)
        try:
            self._cut_torn_tail()
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view):]
            os.fsync(self._fd)
        except OSError as exc:
            self._torn = True
            with contextlib.suppress(OSError):  # still torn: the next append or `probe` cuts it
                self._cut_torn_tail()
            raise LogWriteError(exc.errno or errno.EIO,
                                f"batch log {self.dir}: write failed: {exc.strerror or exc}") from exc
        self._durable_size += len(data)
        self.bytes_since_snapshot += len(data)
        if record.kind in ("batch", "load"):
            self.batches_since_snapshot += 1

    def _cut_torn_tail(self) -> None:
        if self._torn:
            os.ftruncate(self._fd, self._durable_size)
            os.fsync(self._fd)
            self._torn = False

    def probe(self, size: int = 64 << 10) -> None:
        """Check that the data directory takes a durable write of `size` bytes again (after a
        failed append); raises OSError when it does not.  Cuts a lingering torn tail first."""
        if self._fd is not None:
            self._cut_torn_tail()
        path = self.dir / ".write-probe"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                view = memoryview(bytes(size))
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
        finally:
            path.unlink(missing_ok=True)

    def remember(self, batch_ids: OrderedDict, batch_id: str, answer: dict) -> None:
        """Add a batch_id to an in-memory index, keeping at most `batch_id_retention` ids."""
        self._remember(batch_ids, batch_id, answer)

    def _remember(self, batch_ids: OrderedDict, batch_id: str, answer: dict) -> None:
        batch_ids[batch_id] = answer
        batch_ids.move_to_end(batch_id)
        while len(batch_ids) > self.batch_id_retention:
            batch_ids.popitem(last=False)

    def write_snapshot(self, snap: Snapshot) -> None:
        """Start a new segment, write `snap` durably, then drop what it covers.

        `snap` must describe the state after every record appended so far.  When it fails
        (disk full), the log alone still holds everything, and the next attempt is due
        after as many batches again.
        """
        self._open_segment(self.seq + 1)
        snap.next_seq = self.seq
        meta = {
            "version": snap.version,
            "next_seq": snap.next_seq,
            "patterns": {str(k): v for k, v in snap.patterns.items()},
            "totals": {str(k): v for k, v in snap.totals.items()},
            "batch_ids": snap.batch_ids,
            "vertex_kind": snap.vertex_kind,
        }
        final = self.dir / f"snapshot-{snap.version:012d}.npz"
        tmp = self.dir / f".snapshot-{snap.version:012d}.tmp"
        try:
            with open(tmp, "wb") as f:
                np.savez(f, external=np.asarray(snap.external, dtype=np.int64),
                         edges=np.asarray(snap.edges, dtype=np.int64).reshape(-1, 2),
                         names=np.asarray(snap.names, dtype=str),
                         meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
                f.flush()
                os.fsync(f.fileno())
        except BaseException:
            tmp.unlink(missing_ok=True)  # give the room back
            self.bytes_since_snapshot = 0
            self.batches_since_snapshot = 0
            raise
        os.replace(tmp, final)
        _fsync_dir(self.dir)
        for seq, path in self._segments():
            if seq < snap.next_seq:
                path.unlink()
        for _, path in self._snapshots():
            if path != final:
                path.unlink()
        self.bytes_since_snapshot = 0
        self.batches_since_snapshot = 0

    def close(self) -> None:
        self._close_segment()
        if self._lock is not None:
            self._lock.close()
            self._lock = None
