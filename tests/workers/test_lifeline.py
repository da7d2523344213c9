"""Lifeline: a watch on the owner process that is exact (pidfd) and never fooled by a reused pid."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from deltamatch.workers.lifeline import Lifeline, OwnerProcess, _start_ticks


@pytest.fixture
def owner():
    proc = subprocess.Popen(["sleep", "60"])
    yield proc
    proc.kill()
    proc.wait()


def test_alive_turns_false_the_moment_the_owner_ends(owner):
    line = Lifeline(OwnerProcess(owner.pid, _start_ticks(owner.pid)))
    assert line.watching and line.alive()
    owner.kill()
    owner.wait()
    assert not line.alive()


def test_a_pid_with_another_start_time_is_not_watched(owner):
    line = Lifeline(OwnerProcess(owner.pid, _start_ticks(owner.pid) - 1))
    assert not line.watching and line.alive()


def test_exit_with_owner_ends_this_process_when_the_owner_ends(owner):
    code = ("import sys, time\n"
            "from deltamatch.workers.lifeline import Lifeline, OwnerProcess\n"
            f"Lifeline(OwnerProcess({owner.pid}, {_start_ticks(owner.pid)})).exit_with_owner()\n"
            "print('watching', flush=True)\n"
            "time.sleep(60)\n")
    watcher = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert watcher.stdout.readline().strip() == "watching"
    began = time.monotonic()
    owner.kill()
    owner.wait()
    assert watcher.wait(5) == 1 and time.monotonic() - began < 2


def test_the_exit_waits_for_a_commit_under_way_and_no_commit_begins_after(owner, tmp_path):
    code = ("import sys, time\n"
            "from deltamatch.workers.lifeline import Lifeline, OwnerProcess\n"
            f"line = Lifeline(OwnerProcess({owner.pid}, {_start_ticks(owner.pid)}))\n"
            "line.exit_with_owner()\n"
            "with line.while_owner_alive():\n"
            "    print('committing', flush=True)\n"
            "    sys.stdin.readline()\n"
            f"    open({str(tmp_path / 'first')!r}, 'w').close()\n"
            "with line.while_owner_alive():\n"
            f"    open({str(tmp_path / 'second')!r}, 'w').close()\n"
            "time.sleep(60)\n")
    watcher = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    assert watcher.stdout.readline().strip() == "committing"
    owner.kill()
    owner.wait()
    time.sleep(0.5)
    assert watcher.poll() is None  # the commit under way holds the exit back
    watcher.stdin.write("go\n")
    watcher.stdin.flush()
    assert watcher.wait(5) == 1
    assert (tmp_path / "first").exists() and not (tmp_path / "second").exists()
