"""SessionEvent: one entry of a session's append-only log, and its JSON record (session layer).

An event is ``{type, seq, time, data, sourceEventSeqs?, surfaceOp?}``. ``seq`` equals the
event's index in the log; ``time`` is milliseconds since the Unix epoch; ``data`` is lossless
JSON (an object) and ``payload`` is the same data typed (see ``payloads``): given by a typed
writer, or decoded from ``data`` once, on first read (the log reads it as it admits an event,
so every logged event is decoded exactly once; a load leaves a stored ``assistant/chunk``
to its first reader, see ``admission``). ``surface_op`` is present exactly on
surface-eligible events and says how the event enters the model-visible surface: appended, or
replacing a range of existing nodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from typing import Final, Literal

from dsh_lsp.llm import JsonObject, JsonValue, dumps_compact

from .errors import CORRUPT, SessionError
from .payloads import EventPayload, decode_payload


@dataclass(frozen=True, slots=True, kw_only=True)
class SurfaceReplace:
    """Shadow the surface nodes from seq ``start`` to seq ``end`` (inclusive) with this event."""

    start: int
    end: int


SurfaceOp = Literal["append"] | SurfaceReplace
"""How a surface-eligible event enters the surface."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionEvent:
    """One logged event. ``data`` is the log's own copy of its JSON: treat it as read-only,
    and read ``payload`` instead. Equality compares the JSON, not the decoded payload."""

    type: str
    seq: int
    time: int
    data: JsonObject
    source_event_seqs: tuple[int, ...] | None = None
    """Earlier events this one was built from (an assistant message's chunks, a call)."""
    surface_op: SurfaceOp | None = None
    _payload: EventPayload | None = field(default=None, repr=False, compare=False)
    """The typed payload, once given or decoded (``Session.write`` passes it)."""
    _logged: bool = field(default=False, init=False, repr=False, compare=False)
    """Set by the ``Session`` that admitted the event (its data is the log's own lossless
    copy), so persistence does not check it again; never copied by ``replace``."""

    @property
    def payload(self) -> EventPayload:
        """The typed data: a core payload, a registered plugin payload or a ``RawPayload``.

        Decoded from ``data`` on first read and kept. Raises ``LlmError``
        (``MALFORMED_RECORD``) for data the type cannot hold, which only an event the log
        never admitted can have.
        """
        payload = self._payload
        if payload is None:
            payload = decode_payload(self.type, self.data)
            object.__setattr__(self, "_payload", payload)
        return payload


def surface_op_to_json(op: SurfaceOp) -> JsonValue:
    """``"append"`` or ``{"op": "replace", "start", "end"}``."""
    if isinstance(op, SurfaceReplace):
        return {"op": "replace", "start": op.start, "end": op.end}
    return "append"


def event_to_json(event: SessionEvent) -> dict[str, JsonValue]:
    """The event's record; ``data`` is included as is (not copied)."""
    record: dict[str, JsonValue] = {
        "type": event.type,
        "seq": event.seq,
        "time": event.time,
        "data": event.data,
    }
    if event.source_event_seqs is not None:
        record["sourceEventSeqs"] = list(event.source_event_seqs)
    if event.surface_op is not None:
        record["surfaceOp"] = surface_op_to_json(event.surface_op)
    return record


def encode_event(event: SessionEvent) -> str:
    """The event's record as compact JSON text (no newline).

    Raises ``ValueError``/``TypeError`` when the data is not JSON; callers that accept events
    from outside ``Session.append`` check with ``clone_json`` first.
    """
    if (
        event.type == "assistant/chunk"
        and event.source_event_seqs is None
        and event.surface_op is None
    ):
        text = _delta_record(event)
        if text is not None:
            return text
    return dumps_compact(event_to_json(event))


_DELTA_KEYS: Final = ("turn", "step", "chunk")
_DELTA_CHUNK_KEYS: Final = ("type", "index", "text")
_DELTA_TYPES: Final = frozenset({"text-delta", "reasoning-delta"})


def _delta_record(event: SessionEvent) -> str | None:
    """A streamed text or reasoning delta's record, written directly: the same text
    ``dumps_compact(event_to_json(event))`` gives (a test compares them) at a fraction of
    the cost, for most of a turn's events; None for any other shape."""
    data = event.data
    if type(data) is not dict or tuple(data) != _DELTA_KEYS:
        return None
    chunk = data["chunk"]
    if type(chunk) is not dict or tuple(chunk) != _DELTA_CHUNK_KEYS:
        return None
    turn, step, kind, index, text = (
        data["turn"],
        data["step"],
        chunk["type"],
        chunk["index"],
        chunk["text"],
    )
    if not (
        type(turn) is int
        and type(step) is int
        and type(index) is int
        and type(text) is str
        and type(event.seq) is int
        and type(event.time) is int
        and kind in _DELTA_TYPES
    ):
        return None
    return (
        f'{{"type":"assistant/chunk","seq":{event.seq},"time":{event.time},'
        f'"data":{{"turn":{turn},"step":{step},"chunk":{{"type":"{kind}","index":{index},'
        f'"text":{encode_basestring(text)}}}}}}}'
    )


def event_from_json(value: object) -> SessionEvent:
    """Decode an event record; ``data`` is adopted, not copied.

    Raises ``SessionError`` (``SESSION_CORRUPT``) naming the field that is wrong.
    """
    if type(value) is not dict:
        raise SessionError("event record is not a JSON object", code=CORRUPT)
    kind = value.get("type")
    seq = value.get("seq")
    time = value.get("time")
    data = value.get("data")
    if type(kind) is not str or not kind:
        raise SessionError("event record has no string 'type'", code=CORRUPT)
    if type(seq) is not int or seq < 0:
        raise SessionError("event record 'seq' is not a non-negative integer", code=CORRUPT)
    if type(time) is not int:
        raise SessionError("event record 'time' is not an integer", code=CORRUPT)
    if type(data) is not dict:
        raise SessionError("event record 'data' is not an object", code=CORRUPT)
    sources = value.get("sourceEventSeqs")
    op = value.get("surfaceOp")
    return SessionEvent(
        type=kind,
        seq=seq,
        time=time,
        data=data,
        source_event_seqs=None if sources is None else _seqs(sources),
        surface_op=None if op is None else _surface_op(op),
    )


def _seqs(value: object) -> tuple[int, ...]:
    if type(value) is not list or not set(map(type, value)) <= {int}:
        raise SessionError("event record 'sourceEventSeqs' is not a list of integers", code=CORRUPT)
    items: Sequence[int] = value
    return tuple(items)


def _surface_op(value: object) -> SurfaceOp:
    if value == "append":
        return "append"
    if type(value) is dict and value.get("op") == "replace":
        start, end = value.get("start"), value.get("end")
        if type(start) is int and type(end) is int:
            return SurfaceReplace(start=start, end=end)
    raise SessionError("event record 'surfaceOp' is malformed", code=CORRUPT)
