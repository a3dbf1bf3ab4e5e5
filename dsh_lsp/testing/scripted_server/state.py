"""What the scripted server's connections share: the script, the recordings, the open
connections (testing kit).

``ServerState`` is thread-safe: the serving thread and one thread per connection use it,
tests read it from theirs. ``ScriptedServer`` exposes it; ``handler`` drives it.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dsh_lsp.testing.script import ErrorResponse, ScriptedResponse

_EXHAUSTED = ErrorResponse(
    status=500, body='{"error":{"message":"scripted server: script exhausted"}}'
)


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedRequest:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    """Header names lower-cased."""
    body: bytes
    client: tuple[str, int]
    """The client's (host, port): requests sharing it came over one kept-alive connection."""

    def json(self) -> Any:  # Any: whatever JSON the client sent; tests index into it
        """The body decoded as JSON."""
        return json.loads(self.body)


class ServerState:
    """The script and everything observed; one per ``ScriptedServer``.

    ``shutdown`` is set when the server closes: stalls and delays end early on it.
    ``flush_at`` is the byte count at which a stream's pending steps are written.
    """

    def __init__(
        self,
        responses: Iterable[ScriptedResponse],
        *,
        cycle: bool,
        record_to: Path | None,
        flush_at: int,
    ) -> None:
        self.shutdown = threading.Event()
        self.flush_at = flush_at
        self._record_to = record_to
        self._cycle = cycle
        self._lock = threading.Lock()
        self._responses: list[ScriptedResponse] = list(responses)
        self._served = 0
        self._requests: list[RecordedRequest] = []
        self._disconnects = 0
        self._disconnected = threading.Condition(self._lock)
        self._connections: set[socket.socket] = set()
        self._connection_closed = threading.Condition(self._lock)
        self.check: Callable[[RecordedRequest], ScriptedResponse | None] | None = None
        """Consulted before the script; a response it returns answers the request."""
        self.rejected = 0
        """How many requests ``check`` answered."""

    def answer(self, request: RecordedRequest) -> ScriptedResponse:
        """``check``'s answer to ``request`` if it has one, else the script's next response."""
        if self.check is not None:
            rejection = self.check(request)
            if rejection is not None:
                with self._lock:
                    self.rejected += 1
                return rejection
        return self.next_response()

    def enqueue(self, responses: Iterable[ScriptedResponse]) -> None:
        """Append responses to the script."""
        with self._lock:
            self._responses.extend(responses)

    def next_response(self) -> ScriptedResponse:
        """The answer to the next request: the script in order, then a 500 (or cycling)."""
        with self._lock:
            if self._cycle and self._responses:
                response = self._responses[self._served % len(self._responses)]
            elif self._served < len(self._responses):
                response = self._responses[self._served]
            else:
                response = _EXHAUSTED
            self._served += 1
            return response

    def record(self, request: RecordedRequest) -> None:
        """Keep ``request``; with ``record_to``, append it there without ``Authorization``."""
        with self._lock:
            self._requests.append(request)
            if self._record_to is not None:
                headers = {k: v for k, v in request.headers.items() if k != "authorization"}
                line = {
                    "path": request.path,
                    "headers": headers,
                    "body": request.json(),
                    "client": list(request.client),
                }
                with self._record_to.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(line, ensure_ascii=False) + "\n")

    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def client_gone(self) -> None:
        """Count a response cut short because its client went away."""
        with self._disconnected:
            self._disconnects += 1
            self._disconnected.notify_all()

    def disconnects(self) -> int:
        """How many responses were cut short because the client went away."""
        with self._lock:
            return self._disconnects

    def wait_for_disconnect(self, timeout: float, count: int) -> bool:
        """Block until ``count`` disconnects were counted; ``False`` on timeout."""
        with self._disconnected:
            return self._disconnected.wait_for(lambda: self._disconnects >= count, timeout)

    def opened(self, connection: socket.socket) -> None:
        """Track an accepted connection until ``closed``."""
        with self._lock:
            self._connections.add(connection)

    def closed(self, connection: socket.socket) -> None:
        """Stop tracking a connection its handler has finished with."""
        with self._connection_closed:
            self._connections.discard(connection)
            self._connection_closed.notify_all()

    def end_connections(self, timeout: float) -> bool:
        """Shut the reading side of every open connection and wait for them to close.

        A handler waiting for the next request sees EOF and closes its connection; writing
        still works, so a response under way completes first. ``False`` on timeout (a client
        that does not read what it is sent). The connections' handlers close them.
        """
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):  # already closed by its handler
                connection.shutdown(socket.SHUT_RD)
        with self._connection_closed:
            return self._connection_closed.wait_for(lambda: not self._connections, timeout)
