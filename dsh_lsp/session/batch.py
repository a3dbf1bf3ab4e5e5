"""Checking and encoding one persistence append batch, shared by the backends (session layer)."""

from __future__ import annotations

from collections.abc import Sequence

from .admission import event_problem
from .errors import INVALID_EVENT, SEQ_MISMATCH, SessionError
from .event import SessionEvent, encode_event
from .json_check import NotJsonError, clone_json


def encode_batch(session_id: str, events: Sequence[SessionEvent], stored: int) -> list[str]:
    """The compact JSON records of ``events``, which must continue a log of ``stored`` events.

    Raises ``SessionError``: ``SESSION_SEQ_MISMATCH`` unless the seqs run ``stored``,
    ``stored + 1``, ...; ``SESSION_INVALID_EVENT`` for an event no log may hold (its data not
    lossless JSON, or an admission rule broken). Nothing is written by the caller then.
    Events a ``Session`` logged are not checked again (see ``SessionEvent._logged``).
    """
    records: list[str] = []
    for offset, event in enumerate(events):
        expected = stored + offset
        if event.seq != expected:
            raise SessionError(
                f"session {session_id!r} stores {stored} events, so this append must hold seqs"
                f" {stored}, {stored + 1}, ...; found seq {event.seq} where {expected} belongs",
                code=SEQ_MISMATCH,
            )
        # An event a Session admitted was checked, and its data copied, on the way in.
        problem = None if event._logged else event_problem(event)
        if problem is None and not event._logged:
            try:
                clone_json(event.data)
            except NotJsonError as exc:
                problem = f"data is not lossless JSON: {exc}"
        if problem is not None:
            raise SessionError(
                f"session {session_id!r} event {event.seq} ({event.type}): {problem}",
                code=INVALID_EVENT,
            )
        records.append(encode_event(event))
    return records
