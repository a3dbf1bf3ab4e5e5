"""A real HTTP server on 127.0.0.1 that answers chat-completions calls from a script (testing kit).

``ScriptedServer`` binds a random port and serves on a background thread, so it works from
synchronous benchmarks, from async tests (nothing it does blocks the event loop) and, through
``python -m dsh_lsp.testing.scripted_server --script FILE`` (``__main__``), from another
process. Each POST
takes the next scripted response (``cycle=True`` starts over at the end); an exhausted script
answers 500. Every request is recorded with its headers and body; ``record_to`` also appends
each one to a JSONL file, without its ``Authorization`` header. A client that goes away in
the middle of a response is counted, and ``wait_for_disconnect`` lets a test observe it.

Bodies are HTTP/1.1 chunked. By default every step is its own write, as a live provider
streams; ``coalesce=True`` instead gathers consecutive steps into one write until a ``Delay``,
``Stall`` or ``Disconnect`` step (or 64 KiB) forces a flush, which makes reading CPU-bound.
"""

from __future__ import annotations

import json
import logging
import select
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, assert_never

from dsh_lsp.testing.script import (
    Delay,
    Disconnect,
    ErrorResponse,
    Event,
    Raw,
    ScriptedResponse,
    Stall,
    StreamResponse,
)

_log = logging.getLogger(__name__)

_FLUSH_AT = 64 * 1024
_POLL = 0.02


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedRequest:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    """Header names lower-cased."""
    body: bytes

    def json(self) -> Any:  # Any: whatever JSON the client sent; tests index into it
        """The body decoded as JSON."""
        return json.loads(self.body)


class _ClientGone(Exception):
    """The client closed the connection while a response was being written."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    owner: ScriptedServer

    def handle_error(self, request: Any, client_address: Any) -> None:  # Any: stdlib signature
        _log.debug("scripted server: error while handling %s", client_address, exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # Any: stdlib signature
        _log.debug("scripted server: " + format, *args)

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {name.lower(): value for name, value in self.headers.items()}
        owner._record(RecordedRequest(method="POST", path=self.path, headers=headers, body=body))
        response = owner._next_response()
        try:
            match response:
                case ErrorResponse():
                    self._send_whole(response)
                case StreamResponse():
                    self._send_stream(response)
                case _:
                    assert_never(response)
        except (_ClientGone, ConnectionError, OSError):
            owner._client_gone()
            self.close_connection = True

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
                    self.server.owner._shutdown.wait(seconds)
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
            if size >= self.server.owner._flush_at:
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
        shutdown = self.server.owner._shutdown
        deadline = None if seconds is None else time.monotonic() + seconds
        while not shutdown.is_set():
            timeout = _POLL if deadline is None else min(_POLL, deadline - time.monotonic())
            if timeout <= 0:
                return
            readable, _, _ = select.select([self.connection], [], [], timeout)
            if readable:
                if self.connection.recv(1, socket.MSG_PEEK) == b"":
                    raise _ClientGone
                shutdown.wait(timeout)  # the client sent data, not EOF: keep waiting


class ScriptedServer:
    """The scripted server; start it with ``with`` (or ``start``/``close``).

    Thread-safe: responses may be added and recordings read from any thread. ``close`` stops
    serving, releases stalled responses and closes the listening socket.
    """

    def __init__(
        self,
        responses: Iterable[ScriptedResponse] = (),
        *,
        cycle: bool = False,
        host: str = "127.0.0.1",
        port: int = 0,
        record_to: Path | None = None,
        coalesce: bool = False,
    ) -> None:
        self._record_to = record_to
        self._flush_at = _FLUSH_AT if coalesce else 1
        self._lock = threading.Lock()
        self._responses: list[ScriptedResponse] = list(responses)
        self._served = 0
        self._cycle = cycle
        self._requests: list[RecordedRequest] = []
        self._disconnects = 0
        self._disconnected = threading.Condition(self._lock)
        self._shutdown = threading.Event()
        self._server = _Server((host, port), _Handler)
        self._server.owner = self
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The bound TCP port."""
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>`` — what an adapter's ``base_url`` should be."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ScriptedServer:
        """Begin serving on a daemon thread; returns ``self``."""
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"scripted-server-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and close the listening socket; idempotent."""
        self._shutdown.set()
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def enqueue(self, *responses: ScriptedResponse) -> None:
        """Append responses to the script."""
        with self._lock:
            self._responses.extend(responses)

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def disconnects(self) -> int:
        """How many responses were cut short because the client went away."""
        with self._lock:
            return self._disconnects

    def wait_for_disconnect(self, timeout: float, count: int = 1) -> bool:
        """Block until ``count`` mid-response disconnects were seen; ``False`` on timeout."""
        with self._disconnected:
            return self._disconnected.wait_for(lambda: self._disconnects >= count, timeout)

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)
            if self._record_to is not None:
                headers = {k: v for k, v in request.headers.items() if k != "authorization"}
                line = {"path": request.path, "headers": headers, "body": request.json()}
                with self._record_to.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(line, ensure_ascii=False) + "\n")

    def _next_response(self) -> ScriptedResponse:
        with self._lock:
            if self._cycle and self._responses:
                response = self._responses[self._served % len(self._responses)]
            elif self._served < len(self._responses):
                response = self._responses[self._served]
            else:
                response = ErrorResponse(
                    status=500, body='{"error":{"message":"scripted server: script exhausted"}}'
                )
            self._served += 1
            return response

    def _client_gone(self) -> None:
        with self._disconnected:
            self._disconnects += 1
            self._disconnected.notify_all()
