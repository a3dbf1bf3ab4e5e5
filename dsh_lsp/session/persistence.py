"""The persistence seam: what a session storage backend provides (session layer).

A backend stores logs; the coordinator (``coordinator``) decides when to write. Contract,
checked for every backend by one shared test suite:

- ``create(header)`` registers a new session. Nothing is written yet: the first ``append``
  stores header and events together, atomically (lazy materialization). An id that is
  already stored fails with ``SESSION_EXISTS`` (at ``create`` or at that first append).
- ``append(id, events)`` adds events durably, all or nothing. The first event's seq must be
  the stored count and the batch contiguous (``SESSION_SEQ_MISMATCH``), so a retry after a
  failure can never duplicate or skip an event. Event data must be lossless JSON.
- ``load(id)`` reads a log back, repairing a crash: a torn tail after the last ``turn/end``
  is cut off, an interrupted turn is closed with synthetic events, and the repair is stored
  before ``load`` returns (``repaired`` says one happened). Damage at or before the last
  ``turn/end`` raises ``SESSION_CORRUPT`` naming the file and line (or row).
- ``list()`` returns the stored sessions' headers with their last-update time, newest first.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from dsh_lsp.kernel import ServiceKey
from dsh_lsp.llm import SessionId

from .event import SessionEvent
from .header import SessionHeader


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadedSession:
    """A stored log as ``load`` returns it (repairs included)."""

    header: SessionHeader
    events: tuple[SessionEvent, ...]
    repaired: bool = False
    """True when ``load`` truncated a torn tail or closed an interrupted turn."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredSession:
    """One entry of ``list()``."""

    header: SessionHeader
    updated_at: int
    """When the log was last written, milliseconds since the Unix epoch."""


class SessionPersistence(Protocol):
    """A session storage backend (see the module docstring for the contract).

    Every method raises ``SessionError``: ``SESSION_NOT_FOUND``, ``SESSION_EXISTS``,
    ``SESSION_SEQ_MISMATCH``, ``SESSION_INVALID_EVENT``, ``SESSION_CORRUPT``,
    ``SESSION_UNSUPPORTED_VERSION`` or ``SESSION_IO`` (with the OS/database error as cause).
    """

    async def create(self, header: SessionHeader) -> None:
        """Register a new session; its first ``append`` materializes it."""
        ...

    async def append(self, session_id: SessionId, events: Sequence[SessionEvent]) -> None:
        """Store ``events`` (contiguous, starting at the stored count) durably."""
        ...

    async def load(self, session_id: SessionId) -> LoadedSession:
        """Read, repair if needed, and return a stored session."""
        ...

    async def list(self) -> builtins.list[StoredSession]:
        """Every stored session, most recently updated first."""
        ...


SESSION_PERSISTENCE: ServiceKey[SessionPersistence] = ServiceKey("session-persistence")
"""The storage backend; provided by ``JsonlPersistencePlugin`` or ``SqlitePersistencePlugin``."""
