"""SessionRecord: one session open in this editor, and its ``dsh/session/list`` entry (server).

A record exists from ``dsh/session/new`` (reserved: id, cwd, creation time, no agent yet)
or from a resume (the agent and its stored header). The first prompt of a reserved session
gives it its agent (``handle``). ``list_entry`` renders a record and ``stored_entry`` a
stored session the way ``dsh/session/list`` shows them; times are integer milliseconds
since the epoch.
"""

from __future__ import annotations

from dataclasses import dataclass

from dsh_lsp.agent import AgentHandle
from dsh_lsp.llm import JsonValue
from dsh_lsp.session import StoredSession, wall_clock_ms
from dsh_lsp.tools import ToolRegistry

from .outcome import PendingPrompt
from .session_title import title_from_log
from .updates import UpdateTranslator

ListEntry = dict[str, JsonValue]


@dataclass(slots=True, kw_only=True)
class SessionRecord:
    """One session open in this editor; ``handle`` is None until the first prompt of a
    reserved session creates its agent."""

    session_id: str
    cwd: str | None
    created_at: int
    """Milliseconds since the epoch: the stored header's, or when the id was reserved."""
    translator: UpdateTranslator
    handle: AgentHandle | None = None
    prompt: PendingPrompt | None = None

    @classmethod
    def reserved(cls, session_id: str, cwd: str | None, tools: ToolRegistry) -> SessionRecord:
        """The record of a new session that has no agent yet."""
        return cls(
            session_id=session_id,
            cwd=cwd,
            created_at=wall_clock_ms(),
            translator=UpdateTranslator(tools, cwd),
        )

    @classmethod
    def opened(cls, handle: AgentHandle, tools: ToolRegistry) -> SessionRecord:
        """The record of an agent that exists already (a resumed session)."""
        header = handle.agent.session.header
        return cls(
            session_id=header.id,
            cwd=header.cwd,
            created_at=header.created_at,
            translator=UpdateTranslator(tools, header.cwd),
            handle=handle,
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
        return _entry(self.session_id, header.cwd, title, header.created_at, updated)


def stored_entry(stored: StoredSession) -> ListEntry:
    """The list entry of a stored session: updated at its last write."""
    header = stored.header
    return _entry(header.id, header.cwd, header.title, header.created_at, stored.updated_at)


def _entry(
    session_id: str, cwd: str | None, title: str | None, created: int, updated: int
) -> ListEntry:
    entry: ListEntry = {"sessionId": session_id, "cwd": cwd, "createdAt": created}
    if title is not None:
        entry["title"] = title
    entry["updatedAt"] = updated
    return entry
