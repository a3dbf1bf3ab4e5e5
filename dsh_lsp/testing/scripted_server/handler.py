"""One HTTP/1.1 connection of the scripted server: requests in, scripted responses out
(testing kit).

Connections are kept alive. A ``StreamResponse`` is a chunked ``text/event-stream`` body
ended by the ``0`` terminator; an ``ErrorResponse`` carries ``Content-Length``; a request
body may come with ``Content-Length`` or chunked. ``TCP_NODELAY`` is set as live servers set
it: without it, a small write on a reused connection waits for the client's delayed ACK
(about 40 ms on Linux). A client that leaves in the middle of a response is counted in the
``ServerState``.
"""

from __future__ import annotations

import logging
import select
import socket
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, assert_never

from dsh_lsp.testing.script import (
    Delay,
    Disconnect,
    ErrorResponse,
    Event,
    Raw,
    Stall,
    StreamResponse,
)

from .state import RecordedRequest, ServerState

_log = logging.getLogger(__name__)

_POLL = 0.02


class _ClientGone(Exception):
    """The client closed the connection while a response was being written."""


class HttpServer(ThreadingHTTPServer):
    """The listening socket; one daemon thread per connection, tracked in ``state``."""

    daemon_threads = True
    block_on_close = False
    state: ServerState

    def process_request(self, request: Any, client_address: Any) -> None:  # Any: stdlib
        self.state.opened(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:  # Any: stdlib signature
        super().shutdown_request(request)
        self.state.closed(request)  # after the socket is closed: ``end_connections`` waits on it

    def handle_error(self, request: Any, client_address: Any) -> None:  # Any: stdlib signature
        _log.debug("scripted server: error while handling %s", client_address, exc_info=True)


class Handler(BaseHTTPRequestHandler):
    """Answers each POST on its connection with the script's next response."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: HttpServer

    def log_message(self, format: str, *args: Any) -> None:  # Any: stdlib signature
        _log.debug("scripted server: " + format, *args)

    def do_POST(self) -> None:
        state = self.server.state
        body = self._read_body()
        headers = {name.lower(): value for name, value in self.headers.items()}
        host, port = self.client_address[:2]
        recorded = RecordedRequest(
            method="POST", path=self.path, headers=headers, body=body, client=(str(host), int(port))
        )
        state.record(recorded)
        response = state.answer(recorded)
        try:
            match response:
                case ErrorResponse():
                    self._send_whole(response)
                case StreamResponse():
                    self._send_stream(response)
                case _:
                    assert_never(response)
        except (_ClientGone, ConnectionError, OSError):
            state.client_gone()
            self.close_connection = True

    def _read_body(self) -> bytes:
        """The request body, by ``Content-Length`` or chunked (trailers are skipped)."""
        if "chunked" not in (self.headers.get("Transfer-Encoding") or "").lower():
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""
        parts: list[bytes] = []
        while size := int(self.rfile.readline().split(b";", 1)[0], 16):
            parts.append(self.rfile.read(size))
            self.rfile.readline()
        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
            pass
        return b"".join(parts)

    def _send_whole(self, response: ErrorResponse) -> None:
        payload = response.body.encode("utf-8")
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()

    def _send_stream(self, response: StreamResponse) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.flush()
        state = self.server.state
        pending: list[bytes] = []
        size = 0
        for step in response.steps:
            match step:
                case Event(data=data):
                    piece = f"data: {data}\n\n".encode()
                case Raw(text=text):
                    piece = text.encode("utf-8")
                case Delay(seconds=seconds):
                    self._flush(pending)
                    pending, size = [], 0
                    state.shutdown.wait(seconds)
                    continue
                case Stall(seconds=seconds):
                    self._flush(pending)
                    pending, size = [], 0
                    self._stall(seconds)
                    continue
                case Disconnect():
                    self._flush(pending)
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                case _:
                    assert_never(step)
            pending.append(piece)
            size += len(piece)
            if size >= state.flush_at:
                self._flush(pending)
                pending, size = [], 0
        self._flush(pending)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _flush(self, pending: list[bytes]) -> None:
        if not pending:
            return
        data = b"".join(pending)
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _stall(self, seconds: float | None) -> None:
        """Wait without writing; a client that closes its end raises ``_ClientGone``."""
        shutdown = self.server.state.shutdown
        deadline = None if seconds is None else time.monotonic() + seconds
        while not shutdown.is_set():
            timeout = _POLL if deadline is None else min(_POLL, deadline - time.monotonic())
            if timeout <= 0:
                return
            readable, _, _ = select.select([self.connection], [], [], timeout)
            if readable:
                if self.connection.recv(1, socket.MSG_PEEK) == b"":
                    if shutdown.is_set():
                        return  # the server's own close shut the reading side
                    raise _ClientGone
                shutdown.wait(timeout)  # the client sent data, not EOF: keep waiting
