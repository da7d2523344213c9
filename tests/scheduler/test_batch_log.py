"""The durable batch log: fsynced records, torn tails cut, damage refused or repaired, failed
appends cut off (real ENOSPC on a small tmpfs), snapshots, batch_id index."""

from __future__ import annotations

import errno
import subprocess
import sys

import numpy as np
import pytest

from deltamatch.scheduler.batch_log import BatchLog, LogCorruptError, LogWriteError, Record, Snapshot


def _batch(version: int, batch_id: str | None = None, total: int = 0) -> Record:
    deltas = {"1": {"added": 0, "removed": 0, "total": total}}
    answer = {"version": version, "batch_id": batch_id, "deltas": deltas}
    ins = np.array([[version, version + 1]], dtype=np.int64)
    return Record({"kind": "batch", "version": version, "batch_id": batch_id, "answer": answer}, ins)


def _register(pid: int) -> Record:
    return Record({"kind": "register", "pattern_id": pid, "pattern": {"edges": [[0, 1], [1, 2], [0, 2]],
                                                                      "induced": False, "name": "triangle"}})


def test_recover_replays_every_appended_record(tmp_path):
    log = BatchLog(tmp_path)
    log.recover()
    log.append(_register(1))
    for v in (1, 2, 3):
        log.append(_batch(v, f"b{v}", total=10 * v))
    log.close()
    state = BatchLog(tmp_path).recover()
    assert state.version == 3
    assert list(state.patterns) == [1] and state.totals == {1: 30}
    assert [r.insert.tolist() for r in state.batches()] == [[[1, 2]], [[2, 3]], [[3, 4]]]
    assert state.batch_ids["b2"]["version"] == 2


def test_torn_tail_is_cut_and_appending_continues(tmp_path):
    log = BatchLog(tmp_path)
    log.recover()
    log.append(_batch(1))
    log.append(_batch(2))
    log.close()
    segment = sorted(tmp_path.glob("log-*.bin"))[-1]
    whole = segment.read_bytes()
    segment.write_bytes(whole[:-5])  # a crash in the middle of writing batch 2
    log = BatchLog(tmp_path)
    state = log.recover()
    assert state.version == 1
    log.append(_batch(2, "again"))
    log.close()
    state = BatchLog(tmp_path).recover()
    assert [r.header["version"] for r in state.batches()] == [1, 2]
    assert "again" in state.batch_ids


def _damage_the_middle_record(directory) -> tuple:
    log = BatchLog(directory)
    log.recover()
    for v in (1, 2, 3):
        log.append(_batch(v))
    log.close()
    segment = sorted(directory.glob("log-*.bin"))[-1]
    data = bytearray(segment.read_bytes())
    data[len(data) // 2] ^= 0xFF
    segment.write_bytes(bytes(data))
    return segment, bytes(data)


def test_damaged_record_followed_by_intact_ones_stops_the_start(tmp_path):
    segment, data = _damage_the_middle_record(tmp_path)
    with pytest.raises(LogCorruptError, match=r"offset \d+ .*--repair"):
        BatchLog(tmp_path).recover()
    assert segment.read_bytes() == data  # nothing was cut


def test_repair_keeps_a_copy_and_cuts_at_the_damage(tmp_path):
    segment, data = _damage_the_middle_record(tmp_path)
    log = BatchLog(tmp_path)
    assert log.recover(repair=True).version == 1
    log.close()
    copies = list(tmp_path.glob("log-*.bin.corrupt-*"))
    assert len(copies) == 1 and copies[0].read_bytes() == data
    assert BatchLog(tmp_path).recover().version == 1


def test_failed_append_on_a_full_disk_is_cut_off_and_appending_resumes(small_disk):
    log = BatchLog(small_disk.path)
    log.recover()
    log.append(_batch(1, "b1"))
    small_disk.fill()
    big = Record(_batch(2, "b2").header, np.arange(200_000, dtype=np.int64).reshape(-1, 2))
    segment = sorted(small_disk.path.glob("log-*.bin"))[-1]
    size = segment.stat().st_size
    with pytest.raises(LogWriteError) as err:
        log.append(big)
    assert err.value.errno == errno.ENOSPC
    assert segment.stat().st_size == size and log.healthy
    with pytest.raises(OSError):
        log.probe()
    small_disk.make_room()
    log.probe()
    log.append(_batch(2, "b2-retry"))
    log.close()
    state = BatchLog(small_disk.path).recover()
    assert [r.header["version"] for r in state.batches()] == [1, 2]
    assert set(state.batch_ids) == {"b1", "b2-retry"}


def test_snapshot_covers_earlier_records_and_drops_their_segments(tmp_path):
    log = BatchLog(tmp_path)
    log.recover()
    log.append(_register(1))
    log.append(_batch(1, "b1", total=5))
    log.write_snapshot(Snapshot(version=1, external=np.array([7, 3, 9]), edges=np.array([[7, 3], [3, 9]]),
                                patterns={1: {"edges": [[0, 1], [1, 2], [0, 2]], "induced": False}},
                                totals={1: 5}, batch_ids={"b1": {"version": 1}}))
    log.append(_batch(2, "b2", total=6))
    log.close()
    state = BatchLog(tmp_path).recover()
    assert state.snapshot.version == 1 and state.snapshot.external.tolist() == [7, 3, 9]
    assert state.snapshot.edges.tolist() == [[7, 3], [3, 9]]
    assert [r.header["version"] for r in state.records] == [2]
    assert state.version == 2 and state.totals == {1: 6}
    assert set(state.batch_ids) == {"b1", "b2"}
    assert len(list(tmp_path.glob("snapshot-*.npz"))) == 1


def test_unfinished_snapshot_is_ignored(tmp_path):
    log = BatchLog(tmp_path)
    log.recover()
    log.append(_batch(1))
    log.close()
    (tmp_path / "snapshot-000000000009.npz").write_bytes(b"not a zip")
    state = BatchLog(tmp_path).recover()
    assert state.snapshot.version == 0 and state.version == 1


def test_batch_id_index_is_bounded(tmp_path):
    log = BatchLog(tmp_path, batch_id_retention=2)
    log.recover()
    for v in (1, 2, 3):
        log.append(_batch(v, f"b{v}"))
    log.close()
    state = BatchLog(tmp_path, batch_id_retention=2).recover()
    assert list(state.batch_ids) == ["b2", "b3"]


def test_unregister_drops_the_pattern(tmp_path):
    log = BatchLog(tmp_path)
    log.recover()
    log.append(_register(1))
    log.append(_register(2))
    log.append(Record({"kind": "unregister", "pattern_id": 1}))
    log.close()
    assert list(BatchLog(tmp_path).recover().patterns) == [2]


def test_a_second_log_on_the_same_directory_is_refused(tmp_path):
    first = BatchLog(tmp_path)
    first.recover()
    with pytest.raises(RuntimeError, match="in use"):
        BatchLog(tmp_path, lock_timeout=0.2).recover()
    first.close()
    BatchLog(tmp_path).recover()


def test_failed_append_past_the_file_size_limit_is_cut_off(tmp_path):
    """Real EFBIG: RLIMIT_FSIZE is per process, so the appends run in a child."""
    code = f"""
import errno, resource, signal
import numpy as np
from deltamatch.scheduler.batch_log import BatchLog, LogWriteError, Record
def batch(v, pairs):
    header = {{"kind": "batch", "version": v, "batch_id": f"b{{v}}", "answer": {{"deltas": {{}}}}}}
    return Record(header, pairs)
log = BatchLog({str(tmp_path)!r})
log.recover()
log.append(batch(1, np.array([[1, 2]])))
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, resource.RLIM_INFINITY))
try:
    log.append(batch(2, np.arange(20000).reshape(-1, 2)))
except LogWriteError as exc:
    print("efbig" if exc.errno == errno.EFBIG else exc)
log.append(batch(2, np.array([[2, 3]])))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "efbig", done.stderr
    state = BatchLog(tmp_path).recover()
    assert [r.insert.tolist() for r in state.batches()] == [[[1, 2]], [[2, 3]]]


def test_snapshot_on_a_full_disk_fails_cleanly_and_the_log_goes_on(small_disk):
    log = BatchLog(small_disk.path)
    log.recover()
    log.append(_batch(1, "b1"))
    small_disk.fill()
    big = Snapshot(version=1, external=np.arange(500_000), edges=np.zeros((0, 2), np.int64))
    with pytest.raises(OSError):
        log.write_snapshot(big)
    assert not list(small_disk.path.glob(".snapshot-*")) and log.batches_since_snapshot == 0
    small_disk.make_room()
    log.append(_batch(2, "b2"))
    log.close()
    state = BatchLog(small_disk.path).recover()
    assert state.snapshot.version == 0 and [r.header["version"] for r in state.batches()] == [1, 2]
