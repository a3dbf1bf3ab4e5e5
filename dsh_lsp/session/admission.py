"""The rules an event must satisfy to enter a log, apart from its data's JSON-ness (session).

``event_problem`` checks what every log position needs: a type name, integer turn/step fields
on turn-scoped events, a string ``callId`` on tool events, a reason on ``turn/end``, source seqs
pointing backwards, and ``surface_op`` present on exactly the surface-eligible types. It
returns a description of the first problem, or None; callers raise with their own context.
"""

from __future__ import annotations

from . import events as ev
from .event import SessionEvent, SurfaceReplace

_TURN_FIELDS = {
    ev.TURN_START: ("turn",),
    ev.TURN_END: ("turn",),
    ev.STEP_START: ("turn", "step"),
    ev.STEP_END: ("turn", "step"),
    ev.ASSISTANT_CHUNK: ("turn", "step"),
    ev.ASSISTANT_MESSAGE: ("turn", "step"),
    ev.TOOL_CALL: ("turn", "step"),
    ev.TOOL_RESULT: ("turn", "step"),
    ev.STEERING_MESSAGE: ("turn",),
}


def event_problem(event: SessionEvent) -> str | None:
    """The first rule ``event`` breaks at its position, or None when it may be logged."""
    kind = event.type
    if type(kind) is not str or not kind:
        return "the event type must be a non-empty string"
    if type(event.time) is not int:
        return "the event time must be an integer"
    if type(event.data) is not dict:
        return f"{kind} data must be a JSON object"
    problem = _field_problem(event)
    if problem is not None:
        return problem
    for source in event.source_event_seqs or ():
        if type(source) is not int or not 0 <= source < event.seq:
            return f"{kind} sourceEventSeqs must name earlier events (got {source!r})"
    op = event.surface_op
    if kind in ev.SURFACE_EVENT_TYPES:
        if op is None:
            return f"{kind} is a surface event and needs a surface_op"
        if op != "append" and not (
            isinstance(op, SurfaceReplace) and type(op.start) is int and type(op.end) is int
        ):
            return f"{kind} surface_op must be 'append' or SurfaceReplace(start, end)"
    elif op is not None:
        return f"{kind} is not a surface event type and may not carry a surface_op"
    return None


def _field_problem(event: SessionEvent) -> str | None:
    data = event.data
    for key in _TURN_FIELDS.get(event.type, ()):
        value = data.get(key)
        if type(value) is not int or value < 1:
            return f"{event.type} needs a positive integer {key!r}"
    if event.type in (ev.TOOL_CALL, ev.TOOL_RESULT) and type(data.get("callId")) is not str:
        return f"{event.type} needs a string 'callId'"
    if event.type == ev.TURN_END:
        reason = data.get("reason")
        if type(reason) is not dict or type(reason.get("kind")) is not str:
            return "turn/end needs a reason object with a string 'kind'"
    return None
