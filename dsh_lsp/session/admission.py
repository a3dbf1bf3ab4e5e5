"""The rules an event must satisfy to enter a log, apart from its data's JSON-ness (session).

``event_problem`` checks what every log position needs: a type name, data that decodes to the
type's payload (``payloads.decode_payload``: positive turn/step fields, a string ``callId``,
a turn-end reason, well-formed content; decoded here once and kept on the event), source seqs
pointing backwards, and ``surface_op`` present on exactly the surface-eligible types. It
returns a description of the first problem, or None; callers raise with their own context.

A stored ``assistant/chunk`` record (``stored=True``, the crash-recovery scan of a load) gets
only its envelope checked (``payloads.check_stored_chunk``): chunks are most of a log and
nothing a load runs reads one, so its payload is decoded when first read.
"""

from __future__ import annotations

from dsh_lsp.llm import LlmError

from . import events as ev
from .event import SessionEvent, SurfaceReplace
from .payloads import check_stored_chunk, counts_problem


def event_problem(event: SessionEvent, *, stored: bool = False) -> str | None:
    """The first rule ``event`` breaks at its position, or None when it may be logged.

    ``stored``: ``event`` was read back from a log (see the module docstring).
    """
    kind = event.type
    if type(kind) is not str or not kind:
        return "the event type must be a non-empty string"
    if type(event.time) is not int:
        return "the event time must be an integer"
    if type(event.data) is not dict:
        return f"{kind} data must be a JSON object"
    problem = _payload_problem(event, stored=stored)
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


def _payload_problem(event: SessionEvent, *, stored: bool) -> str | None:
    given = event._payload  # a typed writer's payload: only its counts need checking
    if given is not None:
        return counts_problem(given)
    try:
        if stored and event.type == ev.ASSISTANT_CHUNK:
            check_stored_chunk(event.data)  # its payload is decoded when first read
        else:
            event.payload  # noqa: B018  # decoded here, once, and kept on the event
    except (LlmError, ValueError) as exc:
        if event.type in ev.SURFACE_EVENT_TYPES:
            return f"{event.type} cannot join the surface: {exc}"
        return str(exc)
    return None
