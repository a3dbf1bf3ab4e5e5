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
async def scripted(
    *per_connection: Script, tls: ssl.SSLContext | None = None
) -> AsyncIterator[RawServer]:
    """A server on 127.0.0.1 whose n-th connection runs the n-th script (the last repeats)."""
    listener: anyio.abc.Listener[anyio.abc.ByteStream]
    tcp = await anyio.create_tcp_listener(local_host="127.0.0.1")
    server = RawServer(tcp.extra(anyio.abc.SocketAttribute.local_port))
    listener = TLSListener(tcp, tls, standard_compatible=False) if tls else tcp

    async def serve(stream: anyio.abc.ByteStream) -> None:
        index, server.connections = server.connections, server.connections + 1
        script = per_connection[min(index, len(per_connection) - 1)]
        async with stream:
            with contextlib.suppress(anyio.BrokenResourceError, anyio.EndOfStream, OSError):
                await script(stream, server)
        server.closed.set()

    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, serve)
        yield server
        group.cancel_scope.cancel()


def answer_with(raw: bytes, *, every: bool = False) -> Script:
    """Read a request and write ``raw`` (with ``every``: for each request of the connection)."""

    async def handler(stream: anyio.abc.ByteStream, server: RawServer) -> None:
        while await read_request(stream, server) is not None:
            await stream.send(raw)
            if not every:
                return

    return handler


answer_all = answer_with(OK, every=True)


async def read_then_close(stream: anyio.abc.ByteStream, server: RawServer) -> None:
    await read_request(stream, server)


def url(server: RawServer, scheme: str = "http", host: str = "127.0.0.1") -> str:
    return f"{scheme}://{host}:{server.port}/v1/chat/completions"
