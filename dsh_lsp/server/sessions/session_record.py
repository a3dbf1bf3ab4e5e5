"""SessionRecord: one session open in this editor, and its ``dsh/session/list`` entry (server).

A record exists from ``dsh/session/new`` (reserved: id, cwd, creation time, no agent yet)
or from a resume (the agent and its stored header). The first prompt of a reserved session
gives it its agent (``handle``). ``list_entry`` renders a record and ``stored_entry`` a
stored session the way ``dsh/session/list`` shows them; times are integer milliseconds
since the epoch. An open session whose last write failed is listed with ``storeError``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from dsh_lsp.agent import AgentHandle
from dsh_lsp.llm import JsonObject, JsonValue, SessionId
from dsh_lsp.session import StoredSession, wall_clock_ms
from dsh_lsp.tools import ToolRegistry

from .outcome import PendingPrompt
from .session_title import title_from_log
from .updates import UpdateTranslator

ListEntry = dict[str, JsonValue]


@dataclass(frozen=True, slots=True)
class HeldUpdates:
    """The updates of event ``seq``; ``durable`` ones wait until it is stored, the others
    (streamed chunks) only keep their place behind those."""

    seq: int
    durable: bool
    updates: list[JsonObject]


@dataclass(slots=True, kw_only=True)
class SessionRecord:
    """One session open in this editor; ``handle`` is None until the first prompt of a
    reserved session creates its agent."""

    session_id: SessionId
    cwd: str | None
    created_at: int
    """Milliseconds since the epoch: the stored header's, or when the id was reserved."""
    translator: UpdateTranslator
    handle: AgentHandle | None = None
    prompt: PendingPrompt | None = None
    gated: bool = False
    """Updates wait until their events are stored (a persistence coordinator is loaded)."""
    stored: int = 0
    """How many leading events of the session are durable."""
    store_error: str | None = None
    """The error of the last write attempt, while it has not been followed by a success."""
    held: deque[HeldUpdates] = field(default_factory=deque)
    """Updates rendered but not sent yet, waiting for their events to be stored."""

    @classmethod
    def reserved(
        cls,
        session_id: SessionId,
        cwd: str | None,
        tools: ToolRegistry,
        *,
        gated: bool = False,
        created_at: int | None = None,
    ) -> SessionRecord:
        """The record of a new session that has no agent yet (reserved now, unless
        ``created_at`` says when)."""
        return cls(
            session_id=session_id,
            cwd=cwd,
            created_at=wall_clock_ms() if created_at is None else created_at,
            translator=UpdateTranslator(tools, cwd),
            gated=gated,
        )

    @classmethod
    def opened(
        cls, handle: AgentHandle, tools: ToolRegistry, *, gated: bool = False
    ) -> SessionRecord:
        """The record of an agent that exists already (a resumed session: all stored)."""
        session = handle.agent.session
        header = session.header
        return cls(
            session_id=header.id,
            cwd=header.cwd,
            created_at=header.created_at,
            translator=UpdateTranslator(tools, header.cwd),
            handle=handle,
            gated=gated,
            stored=len(session),
        )

    def list_entry(self) -> ListEntry:
        """The list entry: updated at its last event; titled by its header or, for a log
        stored without a title, by its first typed text."""
        if self.handle is None:
            return _entry(self.session_id, self.cwd, None, self.created_at, self.created_at)
        session = self.handle.agent.session
        header, events = session.header, session.events
        updated = events[-1].time if len(events) else header.created_at
        title = header.title or title_from_log(events[:])
        entry = _entry(self.session_id, header.cwd, title, header.created_at, updated)
        if self.store_error is not None:
            entry["storeError"] = self.store_error
        return entry


def stored_entry(stored: StoredSession) -> ListEntry:
    """The list entry of a stored session: updated at its last write."""
    header = stored.header
    return _entry(header.id, header.cwd, header.title, header.created_at, stored.updated_at)


def _entry(
    session_id: SessionId, cwd: str | None, title: str | None, created: int, updated: int
) -> ListEntry:
    entry: ListEntry = {"sessionId": session_id, "cwd": cwd, "createdAt": created}
    if title is not None:
        entry["title"] = title
    entry["updatedAt"] = updated
    return entry
