"""Raw HTTP servers on real sockets for transport tests: each writes the bytes its test
scripts, one script per connection (the last repeats), and records the requests it read."""

from __future__ import annotations

import contextlib
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import anyio
import anyio.abc
from anyio.streams.tls import TLSListener

from dsh_lsp.llm.http1 import find_head_end

OK = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"

Handler = Callable[[anyio.abc.ByteStream, int], Awaitable[None]]
Script = Callable[[anyio.abc.ByteStream, "RawServer"], Awaitable[None]]


@dataclass
class RawServer:
    port: int
    connections: int = 0
    requests: list[bytes] = field(default_factory=list)
    closed: anyio.Event = field(default_factory=anyio.Event)


async def read_request(stream: anyio.abc.ByteStream, server: RawServer) -> bytes | None:
    """One request (head and ``Content-Length`` body), or ``None`` at the end of the stream."""
    buffer = b""
    while (end := find_head_end(buffer)) < 0:
        try:
            buffer += await stream.receive()
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            return None
    head = buffer[:end].decode("latin-1").lower()
    length = next(
        (
            int(line.split(":")[1])
            for line in head.splitlines()
            if line.startswith("content-length")
        ),
        0,
    )
    while len(buffer) < end + length:
        buffer += await stream.receive()
    server.requests.append(buffer)
    return buffer


@contextlib.asynccontextmanager
async def raw_server(
    handler: Handler, *, tls: ssl.SSLContext | None = None
) -> AsyncIterator[RawServer]:
    listener: anyio.abc.Listener[anyio.abc.ByteStream]
    tcp = await anyio.create_tcp_listener(local_host="127.0.0.1")
    server = RawServer(tcp.extra(anyio.abc.SocketAttribute.local_port))
    listener = TLSListener(tcp, tls, standard_compatible=False) if tls else tcp

    async def serve(stream: anyio.abc.ByteStream) -> None:
        index, server.connections = server.connections, server.connections + 1
        async with stream:
            with contextlib.suppress(anyio.BrokenResourceError, anyio.EndOfStream, OSError):
                await handler(stream, index)
        server.closed.set()

    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, serve)
        yield server
        group.cancel_scope.cancel()


class Scripted:
    """A handler per connection index, with the server passed along."""

    def __init__(self, *per_connection: Script):
        self.per_connection = per_connection
        self.server: RawServer | None = None

    async def __call__(self, stream: anyio.abc.ByteStream, index: int) -> None:
        assert self.server is not None
        await self.per_connection[min(index, len(self.per_connection) - 1)](stream, self.server)


@contextlib.asynccontextmanager
async def scripted(
    *per_connection: Script,
    tls: ssl.SSLContext | None = None,
) -> AsyncIterator[RawServer]:
    handler = Scripted(*per_connection)
    async with raw_server(handler, tls=tls) as server:
        handler.server = server
        yield server


def answer_with(raw: bytes, *, every: bool = False) -> Script:
    """Read a request and write ``raw`` (with ``every``: for each request of the connection)."""

    async def handler(stream: anyio.abc.ByteStream, server: RawServer) -> None:
        while await read_request(stream, server) is not None:
            await stream.send(raw)
            if not every:
                return

    return handler


answer_all = answer_with(OK, every=True)


def answer_then_close(count: int = 1) -> Script:
    async def handler(stream: anyio.abc.ByteStream, server: RawServer) -> None:
        for _ in range(count):
            await read_request(stream, server)
            await stream.send(OK)

    return handler


async def read_then_close(stream: anyio.abc.ByteStream, server: RawServer) -> None:
    await read_request(stream, server)


def url(server: RawServer, scheme: str = "http", host: str = "127.0.0.1") -> str:
    return f"{scheme}://{host}:{server.port}/v1/chat/completions"
