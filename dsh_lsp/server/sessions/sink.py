"""UpdateSink: sends ``dsh/session/update`` notifications, coalescing text chunks (server).

Consecutive ``agent_message_chunk`` (or ``agent_thought_chunk``) updates of one session are
merged while they arrive within ``window`` seconds of the last chunk sent: the first chunk
after a quiet spell goes out at once (first-update latency stays minimal), later ones are
buffered and sent as one update when the window closes. Any other update of the session
sends the buffered text first, so order is kept and the concatenation of the chunks sent is
exactly the model's text. ``run`` is the background flusher (a kernel task); ``flush`` sends
what is buffered now (before a prompt answers, at the end of a replay).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

import anyio

from dsh_lsp.llm import JsonObject
from dsh_lsp.server.wire.channel import ClientChannel

from .updates import TEXT_CHUNK, THOUGHT_CHUNK

UPDATE_METHOD: Final = "dsh/session/update"
DEFAULT_WINDOW: Final = 0.002
"""Seconds within which consecutive chunks are merged."""

_CHUNK_KINDS: Final = frozenset({TEXT_CHUNK, THOUGHT_CHUNK})


@dataclass(slots=True)
class _Buffered:
    kind: str
    parts: list[str] = field(default_factory=list)


class UpdateSink:
    """See the module docstring. Owned by the server bridge; ``run`` runs in its fiber."""

    __slots__ = ("_buffered", "_channel", "_clock", "_last_chunk", "_wake", "_window")

    def __init__(
        self,
        channel: ClientChannel,
        *,
        window: float = DEFAULT_WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._channel = channel
        self._window = window
        self._clock = clock
        self._buffered: dict[str, _Buffered] = {}
        self._last_chunk: dict[str, float] = {}
        self._wake = anyio.Event()

    def send(self, session_id: str, update: JsonObject) -> None:
        """Send (or buffer, for a chunk) one update of ``session_id``; never raises."""
        if not self._channel.features.session_updates:
            return
        kind = update.get("kind")
        if kind not in _CHUNK_KINDS:
            self.flush(session_id)
            self._emit(session_id, update)
            return
        text = update.get("text")
        if not isinstance(text, str) or not text:
            return
        buffered = self._buffered.get(session_id)
        if buffered is not None:
            if buffered.kind == kind:
                buffered.parts.append(text)
                return
            self.flush(session_id)
        now = self._clock()
        if now - self._last_chunk.get(session_id, -math.inf) >= self._window:
            self._last_chunk[session_id] = now
            self._emit(session_id, update)
            return
        self._buffered[session_id] = _Buffered(kind=str(kind), parts=[text])
        self._wake.set()

    def flush(self, session_id: str | None = None) -> None:
        """Send the buffered chunk text of ``session_id`` (every session when None)."""
        ids = list(self._buffered) if session_id is None else [session_id]
        for sid in ids:
            buffered = self._buffered.pop(sid, None)
            if buffered is not None:
                self._last_chunk[sid] = self._clock()
                self._emit(sid, {"kind": buffered.kind, "text": "".join(buffered.parts)})

    def forget(self, session_id: str) -> None:
        """Flush and drop the bookkeeping of a session that closed."""
        self.flush(session_id)
        self._last_chunk.pop(session_id, None)

    async def run(self) -> None:
        """Flush buffered chunks one window after they were buffered, until cancelled."""
        while True:
            await self._wake.wait()
            self._wake = anyio.Event()
            await anyio.sleep(self._window)
            self.flush()

    def _emit(self, session_id: str, update: JsonObject) -> None:
        self._channel.notify(UPDATE_METHOD, {"sessionId": session_id, "update": update})
