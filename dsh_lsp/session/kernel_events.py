"""The kernel events the session package declares (session layer).

``SESSION_CREATED`` fires when the store creates or resumes a session, ``SESSION_EVENT`` after
every append (the event is already logged), and ``SESSION_FLUSH`` is the one durability
checkpoint: awaiting it returns once every listener (the persistence coordinator) has stored
what the session logged so far. ``SESSION_FLUSH_SOON`` asks for the same write without waiting
for it (write-behind), and ``SESSION_STORED`` reports the outcome of every write attempt, so a
UI can hold back what it shows until the events behind it are durable (the durable-turns RFC).
"""

from __future__ import annotations

from dataclasses import dataclass

from dsh_lsp.kernel import EmitEvent, ParallelEvent

from .event import SessionEvent
from .session import Session


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionEventNotice:
    """Payload of ``SESSION_EVENT``: which session logged which event."""

    session: Session
    event: SessionEvent


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionStored:
    """Payload of ``SESSION_STORED``: after a write attempt, how many leading events of
    ``session`` are durable, and the error of the attempt when it failed."""

    session: Session
    stored: int
    error: Exception | None = None


SESSION_CREATED: EmitEvent[Session] = EmitEvent("session/created")
"""A session was created (fresh, forked or resumed) and registered in the store."""

SESSION_EVENT: EmitEvent[SessionEventNotice] = EmitEvent("session/event")
"""An event was appended; it is in the log before listeners run."""

SESSION_FLUSH: ParallelEvent[Session] = ParallelEvent("session/flush")
"""Make everything the session logged so far durable (the agent loop awaits it per turn)."""

SESSION_FLUSH_SOON: EmitEvent[Session] = EmitEvent("session/flush-soon")
"""Start a ``SESSION_FLUSH`` of the session in the background (coalesced); returns at once."""

SESSION_STORED: EmitEvent[SessionStored] = EmitEvent("session/stored")
"""A write of the session finished (``error`` None) or failed; emitted contained."""
