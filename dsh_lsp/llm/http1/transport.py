"""A lean HTTP/1.1 transport for httpx over kept-alive anyio sockets (llm.http1).

``KeepAliveTransport`` is an ``httpx.AsyncBaseTransport`` that replaces httpcore's pool and
h11, whose per-request and per-read cost was most of the harness's own time per model
request. The model adapter sends to it directly (``send``: the request as parts, no
``httpx.Request``) and reads httpx's ``Response``, errors and content decoding as before;
under an ``httpx.AsyncClient`` it serves any request (``handle_async_request``). See RFC
``lean-http-transport``.

What it does: one idle pool per (scheme, host, port); a connection idle longer than
``keepalive_expiry`` or found readable while idle (closed by the server) is dropped before
use; a request whose reused connection turns out dead before a single response byte is sent
once more on a new connection (the keep-alive race). Bodies are framed per RFC 9112 (length,
chunked, until close); a body read to its end on a keep-alive response returns the connection
to the pool, anything else closes it. TLS for ``https`` uses the context the factory gives,
made on first use. Errors are httpx's: ``ConnectError``/``ConnectTimeout``, ``WriteError``,
``ReadError``/``ReadTimeout``, ``RemoteProtocolError`` (malformed framing, a body cut short).

Who closes what: the response stream owns its connection until httpx closes the response;
``aclose`` closes the idle connections (responses still open close their own).
"""

from __future__ import annotations

import contextlib
import math
import select
import socket
import ssl
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import NoReturn

import anyio
import anyio.abc
import httpx
from anyio.streams.tls import TLSStream

from .framing import (
    BodyFraming,
    BodyKind,
    ChunkedDecoder,
    FramingError,
    ResponseHead,
    body_framing,
    find_head_end,
    parse_response_head,
    request_head,
)

_Key = tuple[str, str, int]
_READ_BYTES = 65536
_DEFAULT_PORTS = {"http": 80, "https": 443}
_FRAMING_HEADERS = frozenset({b"content-length", b"transfer-encoding"})
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class _Stale(Exception):
    """A reused connection died before any response byte (the server closed it idle)."""


class _Connection:
    """One socket (TLS or not) and the bytes read past the last message on it."""

    __slots__ = ("idle_since", "leftover", "raw", "stream")

    def __init__(self, stream: anyio.abc.ByteStream, raw: socket.socket) -> None:
        self.stream = stream
        self.raw = raw
        self.leftover = b""
        self.idle_since = 0.0

    def looks_closed(self) -> bool:
        """Whether the idle socket has something to read: the server's close (or bytes no
        request asked for) — either way it cannot carry the next request."""
        try:
            poller = select.poll()
            poller.register(self.raw, select.POLLIN)
            return bool(poller.poll(0))
        except (OSError, ValueError):
            return True

    async def receive(self, seconds: float | None) -> bytes:
        """The next bytes; ``b""`` at the end of the stream. Raises ``httpx.ReadTimeout`` and
        ``httpx.ReadError``."""
        # A bare scope, not ``fail_after``: this runs once per read of every response.
        scope = anyio.CancelScope(
            deadline=math.inf if seconds is None else anyio.current_time() + seconds
        )
        data = b""
        try:
            with scope:
                data = await self.stream.receive(_READ_BYTES)
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            return b""
        except (OSError, ssl.SSLError, anyio.ClosedResourceError) as exc:
            raise httpx.ReadError(str(exc) or type(exc).__name__) from exc
        if scope.cancelled_caught:
            raise httpx.ReadTimeout("timed out waiting for the response")
        return data

    async def aclose(self) -> None:
        """Close the socket, shielded from cancellation; never raises."""
        with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
            await self.stream.aclose()


class KeepAliveTransport(httpx.AsyncBaseTransport):
    """HTTP/1.1 with a keep-alive pool; see the module docstring. Owns its idle sockets."""

    def __init__(
        self,
        *,
        tls_context: Callable[[], ssl.SSLContext] | None = None,
        keepalive_expiry: float = 5.0,
        max_idle_per_host: int = 10,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``tls_context`` makes the context for ``https`` (called once, on first use; the
        default is httpx's verifying context from the environment)."""
        self._tls_factory = tls_context or (lambda: httpx.create_ssl_context())
        self._tls: ssl.SSLContext | None = None
        self._expiry = keepalive_expiry
        self._max_idle = max_idle_per_host
        self._clock = clock
        self._idle: dict[_Key, list[_Connection]] = {}
        self._closed = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` and return the response with its body still to be read.

        Raises what ``send`` raises, and ``TypeError`` for a synchronous body.
        """
        if not isinstance(request.stream, httpx.AsyncByteStream):
            raise TypeError("a request with a synchronous body on an asynchronous transport")
        body = [part async for part in request.stream]
        timeouts = request.extensions.get("timeout", {})
        return await self.send(
            request.method, request.url, request.headers.raw, body, timeouts, request=request
        )

    async def send(
        self,
        method: str,
        url: httpx.URL,
        headers: Sequence[tuple[bytes, bytes]],
        body: Sequence[bytes],
        timeouts: Mapping[str, float | None],
        *,
        request: httpx.Request | None = None,
    ) -> httpx.Response:
        """Send a request given as its parts (a ``Host`` header is added when ``headers`` has
        none; ``Content-Length`` is always the body's; ``body`` is the body's pieces in order,
        joined once with the head) and return the response with its body
        still to be read. ``timeouts`` holds httpx's ``connect``, ``read`` and ``write``
        seconds; ``request``, when given, is named by the errors. The model adapter sends
        this way, without an ``httpx.Request`` per call.

        Raises httpx's ``UnsupportedProtocol``, ``ConnectError``/``ConnectTimeout``,
        ``WriteError``/``WriteTimeout``, ``ReadError``/``ReadTimeout`` or
        ``RemoteProtocolError``, and ``RuntimeError`` once closed; on any error or
        cancellation the connection is closed.
        """
        if self._closed:
            raise RuntimeError("the transport is closed")
        if url.scheme not in _DEFAULT_PORTS:
            raise httpx.UnsupportedProtocol(f"unsupported URL scheme {url.scheme!r}")
        key = (url.scheme, url.host, url.port or _DEFAULT_PORTS[url.scheme])
        message = _message(method, url, headers, body)
        read_timeout = timeouts.get("read")
        for attempt in range(2):
            connection, reused = await self._connection(key, timeouts.get("connect"))
            try:
                with _errors_mapped(request):
                    head = await self._exchange(connection, message, reused, timeouts)
                    framing = body_framing(head, method)
            except _Stale:
                await connection.aclose()
                if attempt:
                    raise httpx.RemoteProtocolError(
                        "the server closed the connection without a response", request=request
                    ) from None
                continue
            except BaseException:
                await connection.aclose()
                raise
            stream = _ResponseBody(self, key, connection, framing, read_timeout, request)
            return httpx.Response(
                head.status,
                headers=head.headers,
                stream=stream,
                extensions={"http_version": head.version, "reason_phrase": head.reason},
            )
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    async def aclose(self) -> None:
        """Close every idle connection; later requests raise ``RuntimeError``."""
        self._closed = True
        idle, self._idle = self._idle, {}
        for connections in idle.values():
            for connection in connections:
                await connection.aclose()

    async def _connection(self, key: _Key, seconds: float | None) -> tuple[_Connection, bool]:
        """A live idle connection to ``key`` (``True``) or a new one (``False``)."""
        idle = self._idle.get(key)
        now = self._clock()
        while idle:
            connection = idle.pop()
            if now - connection.idle_since <= self._expiry and not connection.looks_closed():
                return connection, True
            await connection.aclose()
        return await self._connect(key, seconds), False

    async def _connect(self, key: _Key, seconds: float | None) -> _Connection:
        scheme, host, port = key
        try:
            with anyio.fail_after(seconds):
                tcp = await anyio.connect_tcp(host, port)
                raw = tcp.extra(anyio.abc.SocketAttribute.raw_socket)
                if scheme == "http":
                    return _Connection(tcp, raw)
                if self._tls is None:
                    self._tls = self._tls_factory()
                try:
                    tls = await TLSStream.wrap(
                        tcp, hostname=host, ssl_context=self._tls, standard_compatible=False
                    )
                except BaseException:
                    await _Connection(tcp, raw).aclose()
                    raise
                return _Connection(tls, raw)
        except TimeoutError:
            raise httpx.ConnectTimeout(f"timed out connecting to {host}:{port}") from None
        except (OSError, ssl.SSLError, anyio.BrokenResourceError) as exc:
            raise httpx.ConnectError(f"{host}:{port}: {exc}") from exc

    async def _exchange(
        self,
        connection: _Connection,
        message: bytes,
        reused: bool,
        timeouts: Mapping[str, float | None],
    ) -> ResponseHead:
        """Send ``message`` and read the response head (interim 1xx heads skipped)."""
        try:
            with anyio.fail_after(timeouts.get("write")):
                await connection.stream.send(message)
        except TimeoutError:
            raise httpx.WriteTimeout("timed out sending the request") from None
        except (OSError, ssl.SSLError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            if reused:
                raise _Stale() from None
            # The server may have answered before reading the whole request (a 413, say).
        buffer = b""
        read_timeout = timeouts.get("read")
        while True:
            end = find_head_end(buffer)
            if end < 0:
                data = await connection.receive(read_timeout)
                if not data:
                    if not buffer and reused:
                        raise _Stale()
                    raise FramingError("the connection closed before a full response head")
                buffer += data
                continue
            head = parse_response_head(buffer[:end])
            buffer = buffer[end:]
            if 100 <= head.status < 200:
                if head.status == 101:
                    raise FramingError("the server switched protocols, which was not asked for")
                continue
            connection.leftover = buffer
            return head

    def _release(self, key: _Key, connection: _Connection) -> bool:
        """Put ``connection`` back in the idle pool; ``False`` when it must be closed."""
        idle = self._idle.setdefault(key, [])
        if self._closed or connection.leftover or len(idle) >= self._max_idle:
            return False
        connection.idle_since = self._clock()
        idle.append(connection)
        return True


class _ResponseBody(httpx.AsyncByteStream):
    """A response body read off its connection; closing it pools or closes the connection."""

    def __init__(
        self,
        transport: KeepAliveTransport,
        key: _Key,
        connection: _Connection,
        framing: BodyFraming,
        timeout: float | None,
        request: httpx.Request | None,
    ) -> None:
        self._transport = transport
        self._key = key
        self._connection: _Connection | None = connection
        self._framing = framing
        self._timeout = timeout
        self._request = request
        self._complete = framing.kind is BodyKind.NONE

    async def __aiter__(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive. Raises ``httpx.ReadError``/``ReadTimeout``, and
        ``RemoteProtocolError`` for bad framing or a body cut short."""
        connection = self._connection
        if connection is None or self._complete:
            return
        with _errors_mapped(self._request):
            kind = self._framing.kind
            if kind is BodyKind.CHUNKED:
                async for data in self._chunked(connection):
                    yield data
            elif kind is BodyKind.LENGTH:
                async for data in self._sized(connection, self._framing.length):
                    yield data
            else:
                async for data in self._until_close(connection):
                    yield data
        self._complete = True

    async def aclose(self) -> None:
        """Return the connection to the pool if the body was read to its end on a keep-alive
        response; close it otherwise. Idempotent; never raises."""
        connection, self._connection = self._connection, None
        if connection is None:
            return
        reusable = self._complete and self._framing.keep_alive
        if not reusable or not self._transport._release(self._key, connection):
            await connection.aclose()

    async def _chunked(self, connection: _Connection) -> AsyncIterator[bytes]:
        decoder = ChunkedDecoder()
        pending, connection.leftover = connection.leftover, b""
        while True:
            if pending:
                data = decoder.feed(pending)
                if data:
                    yield data
                if decoder.done:
                    connection.leftover = decoder.excess
                    return
            pending = await connection.receive(self._timeout)
            if not pending:
                _cut_short()

    async def _sized(self, connection: _Connection, length: int) -> AsyncIterator[bytes]:
        pending, connection.leftover = connection.leftover, b""
        remaining = length
        while remaining:
            if not pending:
                pending = await connection.receive(self._timeout)
                if not pending:
                    _cut_short()
            data, pending = pending[:remaining], pending[remaining:]
            remaining -= len(data)
            yield data
        connection.leftover = pending

    async def _until_close(self, connection: _Connection) -> AsyncIterator[bytes]:
        pending, connection.leftover = connection.leftover, b""
        while True:
            if pending:
                yield pending
            pending = await connection.receive(self._timeout)
            if not pending:
                return


def _message(
    method: str, url: httpx.URL, headers: Sequence[tuple[bytes, bytes]], body: Sequence[bytes]
) -> bytes:
    """The request head and body (its pieces joined), framed by a ``Content-Length`` of the
    body as read."""
    kept = [(name, value) for name, value in headers if name.lower() not in _FRAMING_HEADERS]
    if not any(name.lower() == b"host" for name, _ in kept):
        kept.insert(0, (b"Host", url.netloc))
    length = sum(map(len, body))
    if length or method in _BODY_METHODS:
        kept.append((b"Content-Length", str(length).encode("ascii")))
    return b"".join((request_head(method, url.raw_path, kept), *body))


def _cut_short() -> NoReturn:
    raise FramingError("the server closed the connection before the body ended")


@contextlib.contextmanager
def _errors_mapped(request: httpx.Request | None) -> Iterator[None]:
    """``FramingError`` as ``httpx.RemoteProtocolError``; httpx errors get ``request`` (when
    there is one)."""
    try:
        yield
    except FramingError as exc:
        raise httpx.RemoteProtocolError(str(exc), request=request) from None
    except httpx.TransportError as exc:
        if request is not None:
            exc.request = request
        raise
