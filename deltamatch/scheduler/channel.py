"""A direct request channel from the API process to the scheduler actor, beside Ray.

A Ray actor call from the API to the scheduler cost 1.4-2.4 ms p50 on the dev VM (an asyncio
driver awaiting the actor, whatever its concurrency; 3.9-5.1 ms as `scheduler_call` inside the
service under load, 2.6-3.1 ms on the H200 host), a request-reply over a Unix socket 0.16-0.26 ms
(docs/PERFORMANCE.md, "The local route's milliseconds").  So the
batch hot path goes over a socket the scheduler actor listens on, as SGLang's and vLLM's API
servers talk to their schedulers; Ray still places, owns and restarts the actor, and every
other call goes through it.

Contract:
- The socket is in Linux's abstract namespace (no file to clean up after a kill -9), named at
  random.  The first bytes a client sends are the channel's key (`KEY_BYTES` random bytes that the
  scheduler hands out through Ray); a connection that sends anything else is closed before one
  byte of it is unpickled, as is one that sends nothing for `CONNECT_TIMEOUT_S`.
- A frame is an 8-byte little-endian length, then a pickle: a request `(method, args)`, an
  answer `(True, value)` or `(False, exception)`.  One request is answered before the next is
  read; calls on one connection are serialized by the client.
- `ChannelClient.call` raises `ChannelCallError` (its `cause` the exception the method raised,
  as Ray's `RayTaskError.cause`) when the method failed, and `ChannelClosed` when the connection
  failed: the scheduler died or the socket broke, and whether the call ran is unknown (as with a
  `RayActorError`).  A call is shielded from the caller's cancellation, so an abandoned request
  never leaves its answer to be read by the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import pickle
import secrets
import socket
import struct
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

log = logging.getLogger("deltamatch.scheduler.channel")
KEY_BYTES = 32
_LENGTH = struct.Struct("<Q")
CONNECT_TIMEOUT_S = 5.0


class ChannelClosed(ConnectionError):
    """The connection to the scheduler failed; the call may or may not have run."""


class ChannelCallError(Exception):
    """The scheduler's method raised `cause`."""

    def __init__(self, cause: BaseException):
        super().__init__(f"{type(cause).__name__}: {cause}")
        self.cause = cause


@dataclass(frozen=True)
class ChannelAddress:
    """Where a `ChannelServer` listens and the key it expects first."""

    name: str  # an abstract Unix socket name (leading NUL)
    key: bytes


def _frame(payload: bytes) -> bytes:
    return _LENGTH.pack(len(payload)) + payload


def _read_exactly(conn: socket.socket, size: int) -> bytes | None:
    """`size` bytes, or None when the peer closed first."""
    chunks, left = [], size
    while left:
        chunk = conn.recv(min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _answer_bytes(ok: bool, value) -> bytes:
    """The answer pickled; an exception that does not pickle goes as a RuntimeError naming it."""
    try:
        return pickle.dumps((ok, value), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        if ok:
            value = exc
        return pickle.dumps((False, RuntimeError(f"{type(value).__name__}: {value}")),
                            protocol=pickle.HIGHEST_PROTOCOL)


class ChannelServer:
    """Answers `handler(method, args)` for `methods` to clients that know the key, one thread per
    connection (the handler does its own locking)."""

    def __init__(self, handler: Callable[[str, tuple], object], methods: Iterable[str]):
        self._handler = handler
        self._methods = frozenset(methods)
        self.address = ChannelAddress(f"\0deltamatch-scheduler-{secrets.token_hex(12)}",
                                      secrets.token_bytes(KEY_BYTES))
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(self.address.name)
        self._listener.listen(8)
        threading.Thread(target=self._accept, name="scheduler-channel", daemon=True).start()

    def close(self) -> None:
        """Stop accepting; open connections end with their clients."""
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:  # closed
                return
            threading.Thread(target=self._serve, args=(conn,), name="scheduler-channel-conn",
                             daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(CONNECT_TIMEOUT_S)  # a peer that never sends the key does not keep a thread
            try:
                key = _read_exactly(conn, KEY_BYTES)
            except OSError:
                key = None
            if key is None or not hmac.compare_digest(key, self.address.key):
                log.warning("scheduler channel: a connection without the key was closed")
                return
            conn.settimeout(None)
            while True:
                head = _read_exactly(conn, _LENGTH.size)
                if head is None:
                    return
                request = _read_exactly(conn, _LENGTH.unpack(head)[0])
                if request is None:
                    return
                try:
                    method, args = pickle.loads(request)
                    if method not in self._methods:
                        raise ValueError(f"{method!r} is not served over the scheduler channel")
                    answer = _answer_bytes(True, self._handler(method, args))
                except Exception as exc:
                    answer = _answer_bytes(False, exc)
                try:
                    conn.sendall(_frame(answer))
                except OSError:
                    return


class ChannelClient:
    """The API's end of the channel, for asyncio (module docstring: errors, cancellation)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self._reader = reader
        self._writer = writer
        self._lock = asyncio.Lock()
        self._broken: BaseException | None = None

    @classmethod
    async def connect(cls, address: ChannelAddress) -> ChannelClient:
        """Connect and send the key; OSError when the socket cannot be reached (e.g. the scheduler
        runs in another network namespace)."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(CONNECT_TIMEOUT_S)
            sock.connect(address.name)
            sock.setblocking(False)
            reader, writer = await asyncio.open_unix_connection(sock=sock)
        except BaseException:
            sock.close()
            raise
        writer.write(address.key)
        return cls(reader, writer)

    async def call(self, method: str, *args):
        """The scheduler's `method(*args)`; raises `ChannelCallError` or `ChannelClosed`."""
        return await asyncio.shield(self._exchange(method, args))

    async def _exchange(self, method: str, args: tuple):
        async with self._lock:
            if self._broken is not None:
                raise ChannelClosed(f"the scheduler channel is closed: {self._broken}")
            try:
                self._writer.write(_frame(pickle.dumps((method, args), protocol=pickle.HIGHEST_PROTOCOL)))
                await self._writer.drain()
                size = _LENGTH.unpack(await self._reader.readexactly(_LENGTH.size))[0]
                payload = await self._reader.readexactly(size)
            except (OSError, EOFError) as exc:  # IncompleteReadError is an EOFError
                self._broken = exc
                self._writer.close()
                raise ChannelClosed(f"the scheduler channel broke during {method}: {exc!r}") from exc
        try:
            ok, value = pickle.loads(payload)
        except Exception as exc:  # e.g. an exception class that does not unpickle here
            raise ChannelCallError(RuntimeError(f"the answer to {method} did not unpickle: {exc!r}")) from exc
        if not ok:
            raise ChannelCallError(value)
        return value

    def close(self) -> None:
        self._broken = self._broken or ConnectionError("closed by the API")
        with contextlib.suppress(Exception):
            self._writer.close()
