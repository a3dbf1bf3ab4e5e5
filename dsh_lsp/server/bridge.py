"""SessionBridge: editor sessions driven through ``AGENTS``, rendered from the log (server).

The bridge never touches the loop: it creates and resumes agents through the registry, sends
them messages, and renders what their sessions log (``SESSION_EVENT``) through one
``UpdateTranslator`` per session into ``dsh/session/update`` notifications. A prompt settles
exactly once (``PendingPrompt``): on the ``turn/end`` of the first message-triggered turn
logged after it was sent; from the log when the agent goes idle without that event having
reached us; or at once as ``cancelled`` on ``dsh/cancel`` or when its request is cancelled.
A resume replays the whole log through a fresh translator before it answers.

Kernel listeners here never raise: an exception in a ``SESSION_EVENT`` listener would fail
the turn that logged the event, so each is contained and logged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import anyio

from dsh_lsp.agent import (
    AgentHandle,
    AgentOptions,
    AgentRegistry,
    AgentSpec,
    StatusChange,
)
from dsh_lsp.kernel import Context
from dsh_lsp.llm import ContentBlock, JsonValue, SessionId
from dsh_lsp.session import SESSION_PERSISTENCE, SessionError, SessionEventNotice
from dsh_lsp.tools import ToolRegistry

from .errors import TurnRunningError, UnknownSessionError
from .outcome import PendingPrompt, PromptResult
from .sink import UpdateSink
from .updates import UpdateTranslator

_log = logging.getLogger(__name__)

SESSION_NOT_FOUND: Final = "SESSION_NOT_FOUND"


@dataclass(slots=True, kw_only=True)
class SessionRecord:
    """One session open in this editor."""

    handle: AgentHandle
    translator: UpdateTranslator
    prompt: PendingPrompt | None = None


class SessionBridge:
    """See the module docstring. Built by ``ServerBridgePlugin``; closed by ``aclose``."""

    def __init__(
        self,
        ctx: Context,
        *,
        agents: AgentRegistry,
        tools: ToolRegistry,
        sink: UpdateSink,
        options: Callable[[], AgentOptions],
        default_cwd: Callable[[], str | None],
    ) -> None:
        self._ctx = ctx
        self._agents = agents
        self._tools = tools
        self._sink = sink
        self._options = options
        self._default_cwd = default_cwd
        self._records: dict[str, SessionRecord] = {}
        self._opening: dict[str, anyio.Event] = {}
        self._closed = False

    def translator(self, session_id: str) -> UpdateTranslator | None:
        """The live translator of an open session (permission cards use it)."""
        record = self._records.get(session_id)
        return None if record is None else record.translator

    async def new_session(self, cwd: str | None) -> SessionId:
        """Start an agent on a new session in ``cwd`` (default: the first workspace folder).

        Raises AgentError / SessionError from the registry.
        """
        spec = AgentSpec(options=self._options(), cwd=cwd or self._default_cwd())
        handle = await self._agents.create(spec)
        session = handle.agent.session
        self._records[session.id] = SessionRecord(
            handle=handle, translator=UpdateTranslator(self._tools, session.header.cwd)
        )
        return session.id

    async def list_sessions(self) -> list[JsonValue]:
        """Every stored and open session, most recently updated first: an open session by
        the time of its last event, a stored one by its last write."""
        entries: dict[str, dict[str, JsonValue]] = {}
        persistence = self._ctx.get(SESSION_PERSISTENCE)
        if persistence is not None:
            for stored in await persistence.list():
                header = stored.header
                entries[header.id] = _entry(
                    header.id, header.cwd, header.title, header.created_at, stored.updated_at
                )
        for session_id, record in self._records.items():
            session = record.handle.agent.session
            header = session.header
            events = session.events
            updated = events[-1].time if len(events) else header.created_at
            entries[session_id] = _entry(
                session_id, header.cwd, header.title, header.created_at, updated
            )
        ordered = sorted(entries.values(), key=lambda e: _int(e["updatedAt"]), reverse=True)
        return list(ordered)

    async def resume(self, session_id: str) -> SessionId:
        """Open a stored session (or take the open one), replay its whole log as updates,
        then return its id.

        Raises UnknownSessionError for an id nobody stored; SessionError (corrupt log, …)
        and AgentError from the registry otherwise.
        """
        record = await self._open(session_id)
        session = record.handle.agent.session
        replay = UpdateTranslator(self._tools, session.header.cwd)
        for event in session.events[:]:
            for update in replay.translate(event):
                self._sink.send(session_id, update)
        self._sink.flush(session_id)
        return session.id

    async def _open(self, session_id: str) -> SessionRecord:
        while (opening := self._opening.get(session_id)) is not None:
            await opening.wait()
        record = self._records.get(session_id)
        if record is not None:
            return record
        opening = self._opening[session_id] = anyio.Event()
        try:
            handle = await self._agents.resume(SessionId(session_id), options=self._options())
        except SessionError as exc:
            if exc.code == SESSION_NOT_FOUND:
                raise UnknownSessionError(session_id) from None
            raise
        finally:
            del self._opening[session_id]
            opening.set()
        cwd = handle.agent.session.header.cwd
        record = SessionRecord(handle=handle, translator=UpdateTranslator(self._tools, cwd))
        self._records[session_id] = record
        return record

    async def prompt(self, session_id: str, content: tuple[ContentBlock, ...]) -> PromptResult:
        """Send ``content`` and wait for the turn it starts to end.

        Raises UnknownSessionError, TurnRunningError, TurnFailedError (the turn ended with
        an error; its code travels along). Cancelling the caller cancels the turn.
        """
        record = self._records.get(session_id)
        if record is None:
            raise UnknownSessionError(session_id)
        if record.prompt is not None:
            raise TurnRunningError(session_id)
        pending = record.prompt = PendingPrompt()
        agent = record.handle.agent
        try:
            await agent.when_idle()
            if not pending.settled:
                pending.begin(len(agent.session.events))
                agent.send(content)
            return await pending.wait()
        except anyio.get_cancelled_exc_class():
            self.cancel(session_id)
            raise
        finally:
            if record.prompt is pending:
                record.prompt = None

    def cancel(self, session_id: str) -> None:
        """Cancel the session's turn and settle its prompt as ``cancelled`` now; unknown
        sessions are ignored (this serves a notification)."""
        record = self._records.get(session_id)
        if record is None:
            _log.info("dsh/cancel for a session that is not open: %s", session_id)
            return
        record.handle.agent.cancel("dsh/cancel")
        if record.prompt is not None and not record.prompt.settled:
            self._sink.flush(session_id)
            record.prompt.cancel()

    def on_session_event(self, notice: SessionEventNotice) -> None:
        """``SESSION_EVENT`` listener: render the event, settle a prompt on its turn's end."""
        session_id = notice.session.id
        record = self._records.get(session_id)
        if record is None:
            return
        try:
            for update in record.translator.translate(notice.event):
                self._sink.send(session_id, update)
            pending = record.prompt
            if pending is not None and pending.observe(notice.event):
                self._sink.flush(session_id)
        except Exception:
            _log.exception("rendering event %s of session %s failed", notice.event.seq, session_id)

    def on_status(self, change: StatusChange) -> None:
        """``AGENT_STATUS`` listener: the fallback that settles a prompt from the log when the
        agent went idle (or was disposed) and the prompt is still open."""
        if change.status == "running":
            return
        session = change.agent.session
        record = self._records.get(session.id)
        if record is None or record.prompt is None or record.prompt.settled:
            return
        pending = record.prompt
        if pending.watermark is None:
            return
        try:
            pending.reconcile(session.events[pending.watermark :])
            self._sink.flush(session.id)
        except Exception:
            _log.exception("settling the prompt of session %s from its log failed", session.id)

    async def aclose(self) -> None:
        """Cancel every turn, settle every prompt, and dispose every agent (each lands its
        closing ``turn/end`` and flush first). Idempotent; never raises."""
        if self._closed:
            return
        self._closed = True
        records = list(self._records.items())
        for session_id, _ in records:
            self.cancel(session_id)
        async with anyio.create_task_group() as group:
            for session_id, record in records:
                group.start_soon(self._dispose, session_id, record)
        self._records.clear()

    async def _dispose(self, session_id: str, record: SessionRecord) -> None:
        try:
            await record.handle.dispose()
        except Exception:
            _log.exception("disposing the agent of session %s failed", session_id)
        self._sink.forget(session_id)


def _entry(
    session_id: str, cwd: str | None, title: str | None, created: int, updated: int
) -> dict[str, JsonValue]:
    entry: dict[str, JsonValue] = {"sessionId": session_id, "cwd": cwd, "createdAt": created}
    if title is not None:
        entry["title"] = title
    entry["updatedAt"] = updated
    return entry


def _int(value: JsonValue) -> int:
    return value if isinstance(value, int) else 0
