"""A real HTTP server on 127.0.0.1 that answers chat-completions calls from a script (testing kit).

``ScriptedServer`` binds a random port and serves on a background thread, so it works from
synchronous benchmarks, from async tests (nothing it does blocks the event loop) and, through
``python -m dsh_lsp.testing.scripted_server --script FILE`` (``__main__``), from another
process. Each POST takes the next scripted response (``cycle=True`` starts over at the end);
an exhausted script answers 500. Every request is recorded with its headers, body and client
address (``RecordedRequest.client``: requests sharing it came over one kept-alive
connection); ``record_to`` also appends each one to a JSONL file, without its
``Authorization`` header. A client that goes away in the middle of a response is counted,
and ``wait_for_disconnect`` lets a test observe it. The HTTP/1.1 details are in ``handler``.

``check`` looks at each request first, as a provider validates it: a response it returns is
sent instead of the script's next one (``rules.deepseek_thinking`` answers DeepSeek's 400 for a
thinking-mode history without the reasoning it needs).

By default every step is its own write, as a live provider streams; ``coalesce=True``
instead gathers consecutive steps into one write until a ``Delay``, ``Stall`` or
``Disconnect`` step (or 64 KiB) forces a flush, which makes reading CPU-bound.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

from dsh_lsp.testing.script import ScriptedResponse

from .handler import Handler, HttpServer
from .rules import RequestCheck
from .state import RecordedRequest, ServerState

_FLUSH_AT = 64 * 1024
_CLOSE_WAIT = 5.0
"""How long ``close`` waits for open connections to finish their response and close."""


class ScriptedServer:
    """The scripted server; start it with ``with`` (or ``start``/``close``).

    Thread-safe: responses may be added and recordings read from any thread. ``close`` stops
    serving, releases stalled responses, ends kept-alive connections once their current
    response is written, and closes the listening socket.
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
        check: RequestCheck | None = None,
    ) -> None:
        self._state = ServerState(
            responses, cycle=cycle, record_to=record_to, flush_at=_FLUSH_AT if coalesce else 1
        )
        self._state.check = check
        self._server = HttpServer((host, port), Handler)
        self._server.state = self._state
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
        """Stop serving, end kept-alive connections, close the listening socket; idempotent.

        Returns once every connection is closed (a response under way is written first), or
        after 5 s if a client does not read what it is sent.
        """
        self._state.shutdown.set()
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
            self._thread = None
        self._server.server_close()
        self._state.end_connections(_CLOSE_WAIT)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def enqueue(self, *responses: ScriptedResponse) -> None:
        """Append responses to the script."""
        self._state.enqueue(responses)

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received so far, in arrival order."""
        return self._state.requests()

    @property
    def rejected(self) -> int:
        """How many requests ``check`` answered instead of the script."""
        return self._state.rejected

    @property
    def disconnects(self) -> int:
        """How many responses were cut short because the client went away."""
        return self._state.disconnects()

    def wait_for_disconnect(self, timeout: float, count: int = 1) -> bool:
        """Block until ``count`` mid-response disconnects were seen; ``False`` on timeout."""
        return self._state.wait_for_disconnect(timeout, count)
