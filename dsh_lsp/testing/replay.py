"""Replay model calls from a recorded session log, keyless and deterministic (testing kit).

The log is JSON Lines: a header object on the first line, then one event object per line::

    {"type": "session", "version": 0, "id": "s1", ...}          header (not interpreted)
    {"type": "step/start", "seq": 4, "time": 1700000000000, "data": {"turn": 1, "step": 1}}
    {"type": "assistant/chunk", "seq": 5, "time": 1700000000100,
     "data": {"turn": 1, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": "Hi"}}}
    {"type": "turn/end", "seq": 9, "time": 1700000000200, "data": {"turn": 1, "reason": {...}}}

Every ``step/start`` is one model call (the loop starts each step right before its call), and
so is a ``(turn, step)`` with chunks but no ``step/start`` (minimal logs); calls keep the order
they first appear in. A call's chunks are its ``assistant/chunk`` events (in the
``chunk_to_json`` record shape). A call that reached its ``finish`` chunk replays exactly.
One that did not is settled by its turn's ``turn/end``:

- ``error`` at that step: the call failed; it replays its chunks, then raises ``LlmError``
  with the recorded message and code (a call that failed before its first chunk has none);
- ``aborted`` or ``disposed``: cancellation cut it off; it replays its chunks, then waits
  until cancelled;
- anything else (``interrupted`` by a crash, or no ``turn/end`` at all): it raises
  ``LlmError`` (``STREAM_CLOSED``) after its chunks, naming how the recording ended.

Every other event is skipped. A step that failed before its request was sent (an
``agent/request`` listener raising) cannot be told apart from a call that failed before its
first chunk, and is replayed as such. ``ReplayAdapter`` answers the n-th call with the n-th
recorded one. ``ReplayPlugin`` installs the replay as an ``llm/stream`` listener that never
calls ``next``, so no real adapter (and no API key) is needed.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, replace
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
    JsonObject,
    JsonValue,
    LlmCode,
    LlmError,
    LlmRequest,
    StreamChunk,
    chunk_to_json,
    dumps_compact,
)
from dsh_lsp.session import (
    AssistantChunkPayload,
    StepStartPayload,
    TurnAborted,
    TurnDisposed,
    TurnEndPayload,
    TurnEndReason,
    TurnFailed,
    decode_payload,
)

CHUNK_EVENT = "assistant/chunk"
STEP_START_EVENT = "step/start"
STEP_END_EVENT = "step/end"
TURN_END_EVENT = "turn/end"


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayFailure:
    """How a recorded call failed: the ``LlmError`` it raises after its chunks."""

    message: str
    code: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayCall:
    """The recorded chunks of one model call, and its failure if it failed."""

    turn: int
    step: int
    chunks: tuple[StreamChunk, ...]
    failure: ReplayFailure | None = None

    @property
    def complete(self) -> bool:
        """True when the recording reached its ``finish`` chunk."""
        return bool(self.chunks) and isinstance(self.chunks[-1], FinishChunk)


def _bad(line: int, detail: str) -> LlmError:
    return LlmError(f"session log line {line}: {detail}", code=LlmCode.MALFORMED_RECORD)


def _data(record: dict[str, object], line: int) -> JsonObject:
    data = record.get("data")
    if not isinstance(data, dict):
        raise _bad(line, f"{record.get('type')} data must be an object")
    return data


def read_session_log(lines: Iterable[str]) -> tuple[ReplayCall, ...]:
    """The model calls recorded in the JSONL ``lines`` (header first); see the module doc.

    Raises ``LlmError`` (``MALFORMED_RECORD``) naming the line for non-JSON lines, a missing
    header, or a ``step/start``, ``assistant/chunk`` or ``turn/end`` event whose data lacks an
    integer turn (and step), a chunk, or a reason object.
    """
    calls: dict[tuple[int, int], list[StreamChunk]] = {}
    ends: dict[int, TurnEndReason] = {}
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
        kind = record.get("type")
        if kind not in (CHUNK_EVENT, STEP_START_EVENT, TURN_END_EVENT):
            continue
        try:
            payload = decode_payload(kind, _data(record, number))
        except LlmError as exc:
            raise _bad(number, str(exc)) from exc
        match payload:
            case TurnEndPayload(turn=turn, reason=reason):
                ends[turn] = reason
            case StepStartPayload(turn=turn, step=step):
                calls.setdefault((turn, step), [])
            case AssistantChunkPayload(turn=turn, step=step, chunk=chunk):
                calls.setdefault((turn, step), []).append(chunk)
            case _:
                pass  # only the three types above were decoded
    if not header_seen:
        raise _bad(1, "the log has no header line")
    return tuple(
        _settle(ReplayCall(turn=turn, step=step, chunks=tuple(chunks)), ends.get(turn))
        for (turn, step), chunks in calls.items()
    )


def _settle(call: ReplayCall, end: TurnEndReason | None) -> ReplayCall:
    """``call`` with the failure its turn's end records for it (see the module docstring)."""
    if call.complete:
        return call
    match end:
        case TurnFailed(step=step, message=message, code=code) if step == call.step:
            failure = ReplayFailure(message=message, code=code or "UNKNOWN")
            return replace(call, failure=failure)
        case TurnAborted() | TurnDisposed():
            return call
        case _:
            pass  # any other end, plugin kinds included: the recording stopped short
    how = "no turn/end" if end is None else f"turn/end {end.kind}"
    failure = ReplayFailure(
        message=f"the recorded call ended before its finish ({how})",
        code=LlmCode.STREAM_CLOSED,
    )
    return replace(call, failure=failure)


def load_session_log(path: Path) -> tuple[ReplayCall, ...]:
    """``read_session_log`` of the file at ``path`` (UTF-8). Raises ``OSError`` and ``LlmError``."""
    with path.open(encoding="utf-8") as lines:
        return read_session_log(lines)


def session_log_lines(calls: Sequence[ReplayCall], *, session_id: str = "replay") -> list[str]:
    """A minimal session log recording ``calls``: per call ``step/start``, its chunks and
    ``step/end``; a failed call ends its turn with an ``error`` reason, a call cut off without
    a failure with ``aborted``. ``read_session_log`` reads it back equal."""
    lines = [dumps_compact({"type": "session", "version": 0, "id": session_id})]

    def add(kind: str, data: dict[str, JsonValue]) -> None:
        lines.append(dumps_compact({"type": kind, "seq": len(lines) - 1, "time": 0, "data": data}))

    for call in calls:
        step: dict[str, JsonValue] = {"turn": call.turn, "step": call.step}
        add(STEP_START_EVENT, step)
        for chunk in call.chunks:
            add(CHUNK_EVENT, {**step, "chunk": chunk_to_json(chunk)})
        add(STEP_END_EVENT, step)
        if call.failure is not None:
            reason: dict[str, JsonValue] = {
                "kind": "error",
                "step": call.step,
                "message": call.failure.message,
                "code": call.failure.code,
            }
            add(TURN_END_EVENT, {"turn": call.turn, "reason": reason})
        elif not call.complete:
            add(TURN_END_EVENT, {"turn": call.turn, "reason": {"kind": "aborted"}})
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
        """Replay the next recorded call (see the module docstring for incomplete ones).

        Raises ``LlmError``: the recorded failure, or ``REPLAY_EXHAUSTED``."""
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
        if call.failure is not None:
            raise LlmError(call.failure.message, code=call.failure.code)
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
