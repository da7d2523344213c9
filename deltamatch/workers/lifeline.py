"""Tie a process's life to its owner's: the scheduler and worker actors end with the API.

Ray ends an actor whose owner died, but only after it notices (seconds), and meanwhile
an orphaned scheduler could still commit a batch nobody will be told about.  A
`Lifeline` holds a pidfd of the owner (the API process), so `alive()` is exact and
`exit_with_owner()` ends this process the moment the owner ends.  `while_owner_alive()`
is the commit point: its body begins only while the owner lives, and the exit waits for a
body under way to finish, so a log record is never begun after the owner ended nor cut in
half by the exit (at most the one record begun before is finished).  The owner is named
by pid and start time, so a reused pid or a process in another pid namespace (a Ray
node in a separate container) is never mistaken for it: then nothing is watched and
Ray's own ownership rules apply.
"""

from __future__ import annotations

import os
import select
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


def _start_ticks(pid: int) -> int | None:
    """Field 22 of /proc/<pid>/stat (start time since boot, in clock ticks), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])


@dataclass(frozen=True)
class OwnerProcess:
    """A process named so that a reused pid does not match: pid plus start time."""

    pid: int
    start_ticks: int | None

    @classmethod
    def current(cls) -> OwnerProcess:
        return cls(os.getpid(), _start_ticks(os.getpid()))


class Lifeline:
    """A watch on `owner` (see module docstring); watches nothing when `owner` is None or not
    visible from this process."""

    def __init__(self, owner: OwnerProcess | None):
        self._fd: int | None = None
        self._commit = threading.Lock()
        pidfd_open = getattr(os, "pidfd_open", None)
        if owner is None or owner.start_ticks is None or pidfd_open is None:
            return
        if _start_ticks(owner.pid) != owner.start_ticks:
            return
        try:
            fd = pidfd_open(owner.pid)
        except OSError:
            return
        if _start_ticks(owner.pid) == owner.start_ticks:  # still the same process, now pinned by fd
            self._fd = fd
        else:
            os.close(fd)

    @property
    def watching(self) -> bool:
        return self._fd is not None

    def alive(self) -> bool:
        """False once the watched owner has ended (True when nothing is watched)."""
        return self._fd is None or not select.select([self._fd], [], [], 0)[0]

    @contextmanager
    def while_owner_alive(self) -> Iterator[None]:
        """Run the body only if the owner is alive, else end this process; `exit_with_owner`
        waits for a body under way (see module docstring)."""
        with self._commit:
            if not self.alive():
                os._exit(1)
            yield

    def exit_with_owner(self) -> None:
        """End this process (no cleanup, like a kill) as soon as the owner ends, never inside a
        `while_owner_alive` body."""
        if self._fd is None:
            return
        fd = self._fd

        def wait_and_exit() -> None:
            select.select([fd], [], [])
            with self._commit:
                os._exit(1)

        threading.Thread(target=wait_and_exit, name="lifeline", daemon=True).start()
