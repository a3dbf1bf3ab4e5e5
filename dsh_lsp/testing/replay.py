"""Replay model calls from a recorded session log, keyless and deterministic (testing kit).

The log is JSON Lines: a header object on the first line, then one event object per line::

    {"type": "session", "version": 0, "id": "s1", ...}          header (not interpreted)
    {"type": "turn/start", "seq": 0, "time": 1700000000000, "data": {...}}
    {"type": "assistant/chunk", "seq": 5, "time": 1700000000100,
     "data": {"turn": 1, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": "Hi"}}}

Only ``assistant/chunk`` events are read; every other event is skipped. Their chunks (in the
``chunk_to_json`` record shape) are grouped by ``(turn, step)`` — one group per model call, in
the order the groups first appear. ``ReplayAdapter`` answers the n-th call with the n-th group;
a group that never reached ``finish`` (the recorded call was cut off) replays its chunks and
then waits until cancelled. ``ReplayPlugin`` installs the replay as an ``llm/stream`` listener
that never calls ``next``, so no real adapter (and no API key) is needed.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio
import anyio.lowlevel
import anyio.to_thread
from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from dsh_lsp.kernel import Context, Plugin
from dsh_lsp.llm import (
    LLM,
    LLM_STREAM,
    FinishChunk,
    LlmCode,
    LlmError,
    LlmRequest,
    StreamChunk,
    chunk_from_json,
    chunk_to_json,
    dumps_compact,
)

CHUNK_EVENT = "assistant/chunk"


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayCall:
    """The recorded chunks of one model call."""

    turn: int
    step: int
    chunks: tuple[StreamChunk, ...]

    @property
    def complete(self) -> bool:
        """True when the recording reached its ``finish`` chunk."""
        return bool(self.chunks) and isinstance(self.chunks[-1], FinishChunk)


def _bad(line: int, detail: str) -> LlmError:
    return LlmError(f"session log line {line}: {detail}", code=LlmCode.MALFORMED_RECORD)


def _int(value: object, line: int, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _bad(line, f"{name} must be an integer")
    return value


def read_session_log(lines: Iterable[str]) -> tuple[ReplayCall, ...]:
    """The model calls recorded in the JSONL ``lines`` (header first).

    Raises ``LlmError`` (``MALFORMED_RECORD``) naming the line for non-JSON lines, a missing
    header, or an ``assistant/chunk`` event whose data is not a turn, a step and a chunk.
    """
    groups: dict[tuple[int, int], list[StreamChunk]] = {}
    header_seen = False
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except ValueError as exc:
            raise _bad(number, f"not JSON ({exc})") from exc
        if not isinstance(record, dict):
            raise _bad(number, "expected a JSON object")
        if not header_seen:
            header_seen = True
            continue
        if record.get("type") != CHUNK_EVENT:
            continue
        data = record.get("data")
        if not isinstance(data, dict):
            raise _bad(number, "assistant/chunk data must be an object")
        key = (_int(data.get("turn"), number, "turn"), _int(data.get("step"), number, "step"))
        try:
            chunk = chunk_from_json(data.get("chunk"))
        except LlmError as exc:
            raise _bad(number, str(exc)) from exc
        groups.setdefault(key, []).append(chunk)
    if not header_seen:
        raise _bad(1, "the log has no header line")
    return tuple(
        ReplayCall(turn=turn, step=step, chunks=tuple(chunks))
        for (turn, step), chunks in groups.items()
    )


def load_session_log(path: Path) -> tuple[ReplayCall, ...]:
    """``read_session_log`` of the file at ``path`` (UTF-8). Raises ``OSError`` and ``LlmError``."""
    with path.open(encoding="utf-8") as lines:
        return read_session_log(lines)


def session_log_lines(calls: Sequence[ReplayCall], *, session_id: str = "replay") -> list[str]:
    """A minimal session log (header plus ``assistant/chunk`` events) recording ``calls``."""
    lines = [dumps_compact({"type": "session", "version": 0, "id": session_id})]
    seq = 0
    for call in calls:
        for chunk in call.chunks:
            data = {"turn": call.turn, "step": call.step, "chunk": chunk_to_json(chunk)}
            event = {"type": CHUNK_EVENT, "seq": seq, "time": 0, "data": data}
            lines.append(dumps_compact(event))
            seq += 1
    return lines


class ReplayAdapter:
    """An ``LlmAdapter`` answering each call with the next recorded one, whatever the model.

    ``requests`` keeps every request received. Raises ``LlmError`` (``REPLAY_EXHAUSTED``) when
    asked for more calls than were recorded.
    """

    def __init__(self, calls: Sequence[ReplayCall]) -> None:
        self._calls = tuple(calls)
        self._next = 0
        self.requests: list[LlmRequest] = []

    @property
    def remaining(self) -> int:
        """Recorded calls not replayed yet."""
        return len(self._calls) - self._next

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        """Replay the next recorded call (see the module docstring for incomplete ones)."""
        self.requests.append(request)
        if self._next >= len(self._calls):
            raise LlmError(
                f"the recording holds {len(self._calls)} model calls; call "
                f"{self._next + 1} has no answer",
                code=LlmCode.REPLAY_EXHAUSTED,
            )
        call = self._calls[self._next]
        self._next += 1
        for chunk in call.chunks:
            await anyio.lowlevel.checkpoint()
            yield chunk
        if not call.complete:
            await anyio.sleep_forever()


class ReplayConfig(BaseModel):
    """Where the recording lives (``sessionLog`` in JSON)."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True
    )

    session_log: Path


class ReplayPlugin(Plugin[ReplayConfig]):
    """Answers every model call from a recorded session log; injects ``LLM``.

    The listener is prepended so it runs before every other ``llm/stream`` listener, and it
    never calls ``next``: no adapter is reached. ``apply`` raises ``OSError`` or ``LlmError``
    (``MALFORMED_RECORD``) for an unreadable log.
    """

    name = "llm-replay"
    config_model = ReplayConfig
    inject = (LLM,)

    def __init__(self) -> None:
        self.adapter: ReplayAdapter | None = None

    async def apply(self, ctx: Context, config: ReplayConfig) -> None:
        """Load the log and install the short-circuiting listener."""
        calls = await anyio.to_thread.run_sync(load_session_log, config.session_log)
        adapter = self.adapter = ReplayAdapter(calls)

        def replay(
            request: LlmRequest, next: Callable[[], AsyncIterator[StreamChunk]]
        ) -> AsyncIterator[StreamChunk]:
            return adapter.stream(request)

        ctx.on(LLM_STREAM, replay, prepend=True)
