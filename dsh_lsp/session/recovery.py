"""Crash recovery for stored logs, shared by every backend (session layer).

``scan`` decodes stored records in order and decides what survives a crash. A record that
does not decode, breaks an admission rule, or has the wrong seq is *bad*. If a good
``turn/end`` follows the first bad record, the damage sits inside history the store once
confirmed, so the log is corrupt and loading fails, naming the place. Otherwise the bad
record starts a torn tail (a write the crash cut short): it and everything after it go.

``interrupted_turn_closers`` then closes a turn the crash left open: a ``tool/call`` for each
tool-call block of the open step's assistant message that has none yet, an error result for
each unanswered tool call, ``step/end`` for an open step and ``turn/end {interrupted}``,
all stamped with the last event's time. Backends store both repairs before ``load`` returns.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Final

from dsh_lsp.llm import CallId, ContentBlock, TextBlock, ToolCallBlock

from . import events as ev
from .admission import event_problem
from .errors import CORRUPT, SessionError
from .event import SessionEvent, SurfaceOp, event_from_json
from .payloads import (
    AssistantMessagePayload,
    EventPayload,
    ResultError,
    StepEndPayload,
    ToolCallPayload,
    ToolResultPayload,
    TurnEndPayload,
)
from .turn_kinds import TurnInterrupted
from .turns import TurnTracker


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
"""One strict decoder for every record (``NaN``/``Infinity`` refused), built once."""


INTERRUPTED_ERROR: Final = ResultError(name="InterruptedError", code="interrupted")
"""The error of the result crash repair records for an unanswered tool call."""


def decode_record(text: str | bytes, seq: int) -> SessionEvent:
    """Decode the record expected at ``seq``; raises ``SessionError`` (``SESSION_CORRUPT``)."""
    try:
        line = text if isinstance(text, str) else text.decode("utf-8")
        value, end = _DECODER.raw_decode(line)
        if end != len(line) and line[end:].strip(" \t\r"):
            raise ValueError(f"extra data at column {end + 1}")
    except ValueError as exc:
        raise SessionError(f"the record is not JSON ({exc})", code=CORRUPT) from exc
    return _event_at(value, seq)


def scan(
    texts: Sequence[str | bytes],
    where: Callable[[int], str],
    *,
    damaged: Mapping[int, str] | None = None,
) -> list[SessionEvent]:
    """The events that survive: every record before the first bad one.

    ``texts`` are the stored records in order; ``damaged`` maps indexes the backend already
    knows to be bad (an unfinished last line, a row under the wrong seq) to the problem.
    ``where(index)`` names a record's place (``"<file> line 7"``). Raises ``SessionError``
    (``SESSION_CORRUPT``, message starting with that place) when a bad record comes before
    the last good ``turn/end``.
    """
    known = damaged or {}
    with _collector_paused():
        events = _decode_all(texts[: min(known, default=len(texts))]) or []
    first_bad: tuple[int, SessionError] | None = None
    for index in range(len(events), len(texts)):
        try:
            if index in known:
                raise SessionError(known[index], code=CORRUPT)
            event = decode_record(texts[index], index)
        except SessionError as exc:
            if first_bad is None:
                first_bad = (index, exc)
            continue
        if first_bad is None:
            events.append(event)
        elif event.type == ev.TURN_END:
            bad_index, error = first_bad
            raise SessionError(
                f"{where(bad_index)}: {error.message}; the log is damaged before a completed"
                " turn, so it cannot be repaired automatically",
                code=CORRUPT,
            ) from error
    return events


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cycle collector while a log is decoded.

    Decoding allocates about ten objects per event and frees none of them, which makes the
    collector rescan the growing heap over and over (a third of the load time at 100,000
    events). Nested or concurrent pauses leave it enabled exactly when it was before.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _decode_all(texts: Sequence[str | bytes]) -> list[SessionEvent] | None:
    """Every record decoded in one parser call (the fast path), or None if any is bad.

    Joining the records into one JSON array saves a parser call per record. If the array
    does not parse into exactly one valid event per record, the caller decodes record by
    record to find the bad one.
    """
    if not texts or not all(isinstance(text, str) for text in texts):
        return None
    strings: Sequence[str] = texts  # type: ignore[assignment]  # all str, checked above
    try:
        values = _DECODER.decode("[" + ",".join(strings) + "]")
        if len(values) != len(strings):
            return None
        return [_event_at(value, seq) for seq, value in enumerate(values)]
    except (ValueError, SessionError):
        return None


def _event_at(value: object, seq: int) -> SessionEvent:
    event = event_from_json(value)
    if event.seq != seq:
        raise SessionError(f"expected seq {seq}, found seq {event.seq}", code=CORRUPT)
    problem = event_problem(event, stored=True)
    if problem is not None:
        raise SessionError(problem, code=CORRUPT)
    return event


def interrupted_turn_closers(events: Sequence[SessionEvent]) -> list[SessionEvent]:
    """The events that close a turn left open in ``events`` (empty when none is open).

    A crash can land between the open step's ``assistant/message`` and the ``tool/call``
    events of its tool-call blocks; those calls get their ``tool/call`` here first, so every
    call the model history shows is answered by an error result.
    """
    start = next(
        (i for i in range(len(events) - 1, -1, -1) if events[i].type == ev.TURN_START), None
    )
    if start is None:
        return []
    tracker = TurnTracker()  # turn state resets at turn/start: the last turn decides
    for event in events[start:]:
        tracker.fold(event)
    turn = tracker.open_turn
    if turn is None:
        return []
    time = events[-1].time
    closers: list[SessionEvent] = []

    def close(
        payload: EventPayload,
        *,
        source: tuple[int, ...] | None = None,
        surface: SurfaceOp | None = None,
    ) -> SessionEvent:
        event = SessionEvent(
            type=payload.kind,
            seq=events[-1].seq + 1 + len(closers),
            time=time,
            data=payload.to_json(),
            source_event_seqs=source,
            surface_op=surface,
            _payload=payload,
        )
        closers.append(event)
        return event

    calls: list[ToolCallPayload] = []
    for pending in tracker.pending_tool_calls():
        assert isinstance(pending.payload, ToolCallPayload)
        calls.append(pending.payload)
    call_seqs = [pending.seq for pending in tracker.pending_tool_calls()]
    open_step = tracker.open_step
    if open_step is not None:
        for call_id, name, arguments in _unlogged_calls(events[start:], open_step):
            call = ToolCallPayload(
                turn=open_step[0],
                step=open_step[1],
                call_id=call_id,
                name=name,
                arguments=arguments,
            )
            calls.append(call)
            call_seqs.append(close(call).seq)
    for call, seq in zip(calls, call_seqs, strict=True):
        result = ToolResultPayload(
            turn=turn,
            step=call.step,
            call_id=call.call_id,
            content=(TextBlock(text=ev.INTERRUPTED_RESULT_TEXT),),
            is_error=True,
            error=INTERRUPTED_ERROR,
        )
        close(result, source=(seq,), surface="append")
    if open_step is not None:
        close(StepEndPayload(turn=open_step[0], step=open_step[1]))
    close(TurnEndPayload(turn=turn, reason=TurnInterrupted()))
    return closers


def _unlogged_calls(
    events: Sequence[SessionEvent], step: tuple[int, int]
) -> list[tuple[CallId, str, str]]:
    """``(id, name, arguments)`` of the tool-call blocks in ``step``'s assistant message that
    have no ``tool/call`` event, in message order (each id once)."""
    seen: set[str] = set()
    content: tuple[ContentBlock, ...] = ()
    for event in events:
        match event.payload:
            case ToolCallPayload(turn=turn, step=number, call_id=call_id):
                if (turn, number) == step:
                    seen.add(call_id)
            case AssistantMessagePayload(turn=turn, step=number, content=blocks):
                if (turn, number) == step:
                    content = blocks
            case _:
                pass  # other types, plugin payloads included, hold no calls
    missing: list[tuple[CallId, str, str]] = []
    for block in content:
        if isinstance(block, ToolCallBlock) and block.id not in seen:
            seen.add(block.id)
            missing.append((block.id, block.name, block.arguments))
    return missing
