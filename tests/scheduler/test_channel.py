"""The direct channel to the scheduler over a real abstract Unix socket: answers and raised
exceptions come back as through Ray, a client without the key runs nothing, only the served
methods run."""

from __future__ import annotations

import asyncio
import errno
import socket
import threading
import time

import numpy as np
import pytest

from deltamatch.scheduler.batch_log import LogWriteError
from deltamatch.scheduler.channel import CONNECT_TIMEOUT_S, ChannelCallError, ChannelClient, ChannelServer

pytestmark = pytest.mark.timeout(60)


class TwoPartError(Exception):
    """An exception that pickles but does not unpickle (its arguments are not its `args`)."""

    def __init__(self, what: str, why: str):
        super().__init__(f"{what}: {why}")


class Recorder:
    """A handler that records what it ran: `apply` echoes its arrays, `fail` raises a log error."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, method: str, args: tuple):
        with self.lock:
            self.calls.append(method)
        if method == "fail":
            raise LogWriteError(errno.ENOSPC, "batch log: write failed: No space left on device")
        if method == "garble":
            raise TwoPartError("garble", "no reason")
        insert, delete = args
        return {"inserted": insert.shape[0]}, {"insert": insert, "delete": delete}


@pytest.fixture
def serve():
    """Starts `ChannelServer(handler, methods)`; every server started is closed after the test."""
    servers: list[ChannelServer] = []

    def start(handler, methods) -> ChannelServer:
        servers.append(ChannelServer(handler, methods))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def _call(server: ChannelServer, method: str, *args):
    async def run():
        client = await ChannelClient.connect(server.address)
        try:
            return await client.call(method, *args)
        finally:
            client.close()
    return asyncio.run(run())


def _calls(server: ChannelServer, *calls: tuple) -> list:
    """Each (method, *args) on one connection: its value or the `ChannelCallError` it raised."""
    async def run():
        client = await ChannelClient.connect(server.address)
        out = []
        try:
            for method, *args in calls:
                try:
                    out.append(await client.call(method, *args))
                except ChannelCallError as exc:
                    out.append(exc)
        finally:
            client.close()
        return out
    return asyncio.run(run())


def test_a_call_answers_the_methods_value_and_a_raised_exception_as_its_cause(serve):
    handler = Recorder()
    server = serve(handler, ("apply", "fail"))
    insert = np.arange(200, dtype=np.int64).reshape(100, 2)
    answer, info = _call(server, "apply", insert, None)
    assert answer == {"inserted": 100}
    assert info["insert"].tolist() == insert.tolist() and info["delete"] is None
    with pytest.raises(ChannelCallError) as raised:
        _call(server, "fail")
    assert isinstance(raised.value.cause, LogWriteError) and raised.value.cause.errno == errno.ENOSPC
    assert handler.calls == ["apply", "fail"]


def test_a_client_without_the_key_is_closed_and_runs_nothing(serve):
    handler = Recorder()
    server = serve(handler, ("apply",))
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(server.address.name)
        sock.sendall(bytes(len(server.address.key)) + b"\x10" + bytes(7) + b"\x80\x05N." * 4)
        try:
            got = sock.recv(1)
        except ConnectionResetError:  # closed with the request unread
            got = b""
        assert got == b""  # no answer
    assert handler.calls == []


def test_a_method_the_server_does_not_serve_is_refused_without_running(serve):
    handler = Recorder()
    server = serve(handler, ("apply",))
    with pytest.raises(ChannelCallError) as raised:
        _call(server, "fail")
    assert isinstance(raised.value.cause, ValueError) and "'fail'" in str(raised.value.cause)
    assert handler.calls == []


def test_an_answer_that_does_not_unpickle_is_an_error_and_the_connection_goes_on(serve):
    handler = Recorder()
    server = serve(handler, ("apply", "garble"))
    one = np.ones((1, 2), dtype=np.int64)
    garbled, answer = _calls(server, ("garble",), ("apply", one, None))
    assert isinstance(garbled, ChannelCallError) and isinstance(garbled.cause, RuntimeError)
    assert "did not unpickle" in str(garbled.cause)
    assert answer[0] == {"inserted": 1}


def test_a_client_that_sends_nothing_is_closed_after_the_connect_timeout(serve):
    server = serve(Recorder(), ("apply",))
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(CONNECT_TIMEOUT_S + 10)
        sock.connect(server.address.name)
        t0 = time.monotonic()
        assert sock.recv(1) == b""
        assert CONNECT_TIMEOUT_S - 1 <= time.monotonic() - t0 < CONNECT_TIMEOUT_S + 5
