"""Transports: the byte connection the server speaks LSP over — stdio or one TCP client (server).

A ``Connection`` reads raw bytes (``b""`` at end of input) and writes whole frames without
ever raising: a write to a peer that went away marks the connection ``lost`` and is dropped,
so a dead client can never fail an agent turn from inside an event listener.

``open_stdio`` moves the protocol off file descriptor 1 first: it keeps a private duplicate of
stdout for frames and points fd 1 (and ``sys.stdout``) at stderr, so a stray ``print`` anywhere
in the process lands in the log instead of corrupting the protocol stream. Pipes and sockets
are read and written without blocking the event loop; a terminal is read when the loop sees it
readable (no thread, so Ctrl-C and SIGTERM stop the process at once), through a descriptor of
its own that the process keeps (``_terminal_reader``), so the mode the loop sets on it never
reaches stdout, stderr or the user's shell; anything else (a file) falls back to a reader
thread and blocking writes. ``open_tcp`` listens on ``host:port`` and serves the first client
that connects.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
from collections.abc import Awaitable, Callable
from typing import BinaryIO, Protocol, cast

import anyio
import anyio.to_thread

_log = logging.getLogger(__name__)

READ_SIZE = 1 << 16


class Connection(Protocol):
    """A byte stream to one client."""

    @property
    def lost(self) -> bool:
        """True once a write failed because the peer is gone."""
        ...

    async def receive(self) -> bytes:
        """The next bytes from the client; ``b""`` once the input ended."""
        ...

    def write(self, data: bytes) -> None:
        """Queue ``data`` for the client; never raises (see the module docstring)."""
        ...

    async def aclose(self) -> None:
        """Flush what is queued (as far as the peer takes it) and close; never raises."""
        ...


class StreamConnection:
    """A ``Connection`` over an asyncio reader and a write callable."""

    __slots__ = ("_close", "_lost", "_pass_open", "_queued", "_receive", "_write")

    def __init__(
        self,
        receive: Callable[[], Awaitable[bytes]],
        write: Callable[[bytes], None],
        close: Callable[[], Awaitable[None]],
    ) -> None:
        self._receive = receive
        self._write = write
        self._close = close
        self._lost = False
        self._queued: list[bytes] = []
        self._pass_open = False

    @property
    def lost(self) -> bool:
        """True once a write failed."""
        return self._lost

    async def receive(self) -> bytes:
        """The next bytes; ``b""`` at end of input or when the connection broke."""
        try:
            return await self._receive()
        except (OSError, ValueError):
            _log.info("reading from the client failed; treating it as end of input")
            return b""

    def write(self, data: bytes) -> None:
        """Write ``data``. The first frame of a pass of the event loop goes out at once (the
        first update of a stream is never delayed); frames written later in the same pass
        are queued and go out together in one write when the pass ends (a tool step's
        updates are released together, and each write is a system call and a wake-up of
        the client). Off the loop's thread every frame is written at once. A failure marks
        the connection lost and drops the data."""
        if self._lost:
            return
        if self._pass_open:
            self._queued.append(data)
            return
        self._send(data)
        try:
            asyncio.get_running_loop().call_soon(self._end_pass)
        except RuntimeError:  # no loop in this thread
            return
        self._pass_open = True

    def _end_pass(self) -> None:
        self._pass_open = False
        self._flush()

    def _flush(self) -> None:
        if self._queued:
            data = b"".join(self._queued)
            self._queued.clear()
            self._send(data)

    def _send(self, data: bytes) -> None:
        if self._lost:
            return
        try:
            self._write(data)
        except (OSError, RuntimeError):
            self._lost = True
            _log.info("the client is gone; dropping output from now on")

    async def aclose(self) -> None:
        """Write what is queued, drain and close; errors are logged, never raised."""
        self._flush()
        try:
            await self._close()
        except (OSError, RuntimeError):
            _log.debug("closing the connection failed", exc_info=True)


def _pipe(fd: int, mode: str) -> BinaryIO:
    """An unbuffered file object over ``fd``; the transport that takes it closes it."""
    return cast(BinaryIO, os.fdopen(fd, mode, buffering=0))


def _is_stream(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


async def open_stdio() -> StreamConnection:
    """The stdio connection; redirects fd 1 to stderr (see the module docstring)."""
    sys.stdout.flush()
    out_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    loop = asyncio.get_running_loop()
    in_fd = sys.stdin.fileno()

    receive: Callable[[], Awaitable[bytes]]
    if _is_stream(in_fd):
        reader = asyncio.StreamReader(limit=READ_SIZE)
        await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), _pipe(in_fd, "rb")
        )

        async def receive_stream() -> bytes:
            return await reader.read(READ_SIZE)

        receive = receive_stream
    elif os.isatty(in_fd):
        terminal = _terminal_reader(in_fd)

        async def receive_terminal() -> bytes:
            while True:
                await anyio.wait_readable(terminal)
                try:
                    return os.read(terminal, READ_SIZE)
                except BlockingIOError:  # woken without input: wait again
                    continue

        receive = receive_terminal
    else:

        async def receive_thread() -> bytes:
            return await anyio.to_thread.run_sync(os.read, in_fd, READ_SIZE, abandon_on_cancel=True)

        receive = receive_thread

    if _is_stream(out_fd):
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, _pipe(out_fd, "wb")
        )
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        return StreamConnection(receive, _stream_write(writer), _stream_close(writer))

    def write_blocking(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(out_fd, view) :]

    async def close_blocking() -> None:
        os.close(out_fd)

    return StreamConnection(receive, write_blocking, close_blocking)


def _terminal_reader(fd: int) -> int:
    """A descriptor of its own for the terminal on ``fd`` (a fresh open of its device), to
    wait on. Waiting for input makes uvloop (libuv) switch the descriptor to non-blocking
    mode, and on ``fd`` itself that mode would be shared with stdout, stderr and the shell
    the server was started from, and outlive the server: the shell's next read would fail.
    Falls back to ``fd`` when the device cannot be opened. Never raises."""
    try:
        return os.open(os.ttyname(fd), os.O_RDONLY | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return fd


def _stream_write(writer: asyncio.StreamWriter) -> Callable[[bytes], None]:
    def write(data: bytes) -> None:
        if writer.transport.is_closing():
            raise ConnectionResetError("the client closed the connection")
        writer.write(data)

    return write


def _stream_close(writer: asyncio.StreamWriter) -> Callable[[], Awaitable[None]]:
    async def close() -> None:
        if not writer.transport.is_closing():
            with anyio.move_on_after(5):
                await writer.drain()
        writer.close()
        with anyio.move_on_after(5):
            await writer.wait_closed()

    return close


async def open_tcp(host: str, port: int, *, ready: Callable[[int], None]) -> StreamConnection:
    """Listen on ``host:port``, call ``ready(bound_port)``, and return the first client's
    connection; the listener closes once that client is accepted. Raises OSError when the
    address cannot be bound."""
    accepted: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    arrived = anyio.Event()

    def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if accepted:
            writer.close()
            return
        accepted.append((reader, writer))
        arrived.set()

    server = await asyncio.start_server(on_client, host, port, limit=READ_SIZE)
    ready(int(server.sockets[0].getsockname()[1]))
    try:
        await arrived.wait()
    finally:
        server.close()
    reader, writer = accepted[0]

    async def receive() -> bytes:
        return await reader.read(READ_SIZE)

    return StreamConnection(receive, _stream_write(writer), _stream_close(writer))
