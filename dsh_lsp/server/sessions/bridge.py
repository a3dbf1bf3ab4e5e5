"""SessionBridge: editor sessions driven through ``AGENTS``, rendered from the log (server).

The bridge never touches the loop: it creates and resumes agents through the registry, sends
them messages, and renders what their sessions log (``SESSION_EVENT``) through one
``UpdateTranslator`` per session into ``dsh/session/update`` notifications. A prompt settles
exactly once (``PendingPrompt``): on the ``turn/end`` of the first message-triggered turn
logged after it was sent, or from the log once the agent is idle (the event never reached
us, or a cancel dropped the message before its turn started). ``dsh/cancel`` and a cancelled
request stop the turn and the prompt waits for it to end, so every update of a turn — its
closing ``state_update`` and ``usage_update`` included — is sent (the sink flushed) before
the prompt answers, whether the turn completed, failed or was cancelled.
A resume replays the whole log through a fresh translator before it answers.

Durability (docs/rfc/implemented/architecture/2026-12-01-durable-turns.md): while a
persistence coordinator is loaded, an update is sent only once the event it renders is
stored (``SESSION_STORED``), except streamed chunks, which only keep their place behind held
updates; and a prompt answers only once its ``turn/end`` is stored. When a write fails, what
is held is sent, the prompt answers ``SESSION_NOT_STORED`` and the session is listed with
``storeError`` until a later write succeeds.

``dsh/session/new`` only reserves the session (id, cwd, creation time); its first prompt
creates the agent and the stored session, titled from that prompt (``session_title``), so
the title is in the stored header from the start. A session nobody prompted leaves no
trace, as before: the store writes a log at its first turn.

Kernel listeners here never raise: an exception in a ``SESSION_EVENT`` listener would fail
the turn that logged the event, so each is contained and logged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Final

import anyio

from dsh_lsp.agent import (
    Agent,
    AgentOptions,
    AgentRegistry,
    AgentSpec,
    StatusChange,
)
from dsh_lsp.compact import (
    COMPACTION,
    CompactionError,
    CompactionOutcome,
    Compactor,
    compact_and_flush,
)
from dsh_lsp.kernel import Context
from dsh_lsp.llm import ContentBlock, JsonObject, JsonValue, SessionId
from dsh_lsp.server.errors import (
    ServerError,
    TurnNotStoredError,
    TurnRunningError,
    UnknownSessionError,
)
from dsh_lsp.session import (
    ASSISTANT_CHUNK,
    PERSISTENCE_COORDINATOR,
    SESSION_PERSISTENCE,
    SessionError,
    SessionEventNotice,
    SessionStored,
    new_session_id,
)
from dsh_lsp.shell import ShellOutput
from dsh_lsp.tools import ToolRegistry

from .outcome import PendingPrompt, PromptResult
from .session_record import HeldUpdates, ListEntry, SessionRecord, stored_entry
from .session_title import session_title
from .shell_rules import ShellAllowList
from .sink import UpdateSink
from .updates import UpdateTranslator, fold_cards, live_output_update

_log = logging.getLogger(__name__)

SESSION_NOT_FOUND: Final = "SESSION_NOT_FOUND"
LANDING_TIMEOUT: Final = 10.0
"""Seconds a prompt whose request was cancelled waits for its turn to end before it
answers anyway."""


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
        self._records: dict[SessionId, SessionRecord] = {}
        self._opening: dict[SessionId, anyio.Event] = {}
        self._stored = anyio.Event()
        """Set (and replaced) after every ``SESSION_STORED``."""
        self._closed = False
        self.shell_rules = ShellAllowList(None)
        """The remembered shell prefixes (``ServerBridgePlugin`` sets the persistent one)."""

    def translator(self, session_id: SessionId) -> UpdateTranslator | None:
        """The live translator of an open session (permission cards use it)."""
        record = self._records.get(session_id)
        return None if record is None else record.translator

    def allowed_prefixes(self, cwd: str | None, setting: tuple[str, ...]) -> list[JsonValue]:
        """The prefixes that approve commands in ``cwd`` (default: the first workspace
        folder): the setting's, then the remembered ones. Never raises."""
        where = cwd or self._default_cwd()
        out: list[JsonValue] = [{"prefix": p, "source": "setting"} for p in setting]
        out += [{"prefix": p, "source": "remembered"} for p in self.shell_rules.prefixes(where)]
        return out

    def revoke_prefix(self, cwd: str | None, prefix: str) -> bool:
        """Forget a remembered prefix of ``cwd`` (default: the first workspace folder).
        Raises OSError when the list cannot be written."""
        where = cwd or self._default_cwd()
        return where is not None and self.shell_rules.revoke(where, prefix)

    async def new_session(
        self,
        cwd: str | None,
        *,
        session_id: SessionId | None = None,
        created_at: int | None = None,
    ) -> SessionId:
        """Reserve a new session in ``cwd`` (default: the first workspace folder); its first
        prompt creates the agent. ``session_id`` and ``created_at`` (milliseconds): those of
        a session answered before the server loaded (``server.early``), else new ones.
        Never raises."""
        session_id = new_session_id() if session_id is None else session_id
        where = cwd or self._default_cwd()
        record = self._records[session_id] = SessionRecord.reserved(
            session_id, where, self._tools, gated=self._gated(), created_at=created_at
        )
        record.translator.window = self._window()
        return session_id

    def _gated(self) -> bool:
        return self._ctx.get(PERSISTENCE_COORDINATOR) is not None

    def _window(self) -> int | None:
        compaction = self._ctx.get(COMPACTION)
        return None if compaction is None else compaction.window(self._options().model)

    async def compact(self, session_id: SessionId) -> JsonValue:
        """Compact the session's history (``dsh/session/compact``); its updates show the
        compaction (``compaction_update``) and the new meter reading.

        While a prompt runs the surface must not change under a step in flight, so the
        compaction waits for the turn's next step boundary (before its next model request)
        and answers then with ``queued: true``; a turn that ends without another step is
        compacted right after it ends (``queued: true`` too).

        Raises UnknownSessionError, ServerError when nothing can compact, and
        CompactionError (nothing to compact, the summary failed, or the step it waited for
        was cancelled; history unchanged).
        """
        record = self._records.get(session_id)
        if record is None:
            raise UnknownSessionError(session_id)
        if record.handle is None:
            raise CompactionError("the session has no history yet")
        agent = record.handle.agent
        compaction = self._ctx.get(COMPACTION)
        if compaction is None:
            raise ServerError("compaction is not available")
        queued = record.prompt is not None
        outcome = await self._at_step(compaction, record, agent) if queued else None
        if outcome is None:
            await agent.when_idle()  # a turn that just answered may still be closing
            outcome = await compact_and_flush(self._ctx, compaction, agent)
        self._sink.flush(session_id)
        result: dict[str, JsonValue] = {
            "tokensBefore": outcome.tokens_before,
            "tokensAfter": outcome.tokens_after,
            "replaced": [outcome.start, outcome.end],
        }
        if queued:
            result["queued"] = True
        return result

    async def _at_step(
        self, compaction: Compactor, record: SessionRecord, agent: Agent
    ) -> CompactionOutcome | None:
        """The outcome of a compaction at the running turn's next step boundary, or None
        when the agent went idle first (the request is withdrawn). The session shows
        ``compaction_update{state: queued}``: the request is registered before this task
        next yields, so before the client can act on the update.
        Raises CompactionError like ``Compactor.compact_at_next_step``."""
        outcome: CompactionOutcome | None = None
        failure: CompactionError | None = None
        async with anyio.create_task_group() as group:

            async def idle() -> None:
                await agent.when_idle()
                group.cancel_scope.cancel()

            group.start_soon(idle)
            self._queued(record)
            try:
                outcome = await compaction.compact_at_next_step(agent)
            except CompactionError as exc:  # raised below, not as an exception group
                failure = exc
            group.cancel_scope.cancel()
        if failure is not None:
            raise failure
        return outcome

    def _queued(self, record: SessionRecord) -> None:
        update: JsonObject = {"kind": "compaction_update", "state": "queued"}
        if record.gated and record.held:
            record.held.append(HeldUpdates(record.held[-1].seq, False, [update]))
        else:
            self._sink.send(record.session_id, update)

    async def list_sessions(self) -> list[JsonValue]:
        """Every stored and open session, most recently updated first: an open session by
        the time of its last event, a stored one by its last write. When the store cannot be
        listed, the open sessions are (a failed write shows as their ``storeError``)."""
        entries: dict[SessionId, ListEntry] = {}
        persistence = self._ctx.get(SESSION_PERSISTENCE)
        if persistence is not None:
            try:
                stored_sessions = await persistence.list()
            except SessionError as exc:  # the open sessions are listed, with their storeError
                _log.warning("could not list the stored sessions: %s", exc)
                stored_sessions = []
            for stored in stored_sessions:
                entries[stored.header.id] = stored_entry(stored)
        for session_id, record in self._records.items():
            entries[session_id] = record.list_entry()
        ordered = sorted(entries.values(), key=lambda e: _int(e["updatedAt"]), reverse=True)
        return list(ordered)

    async def resume(self, session_id: SessionId) -> SessionId:
        """Open a stored session (or take the open one), replay its whole log as updates,
        then return its id.

        Raises UnknownSessionError for an id nobody stored; SessionError (corrupt log, …)
        and AgentError from the registry otherwise.
        """
        record = await self._open(session_id)
        if record.handle is not None:
            replay = UpdateTranslator(self._tools, record.cwd, self._window())
            for event in record.handle.agent.session.events[:]:
                for update in replay.translate(event):
                    self._sink.send(session_id, update)
            self._sink.flush(session_id)
        return SessionId(record.session_id)

    async def _open(self, session_id: SessionId) -> SessionRecord:
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
        record = self._records[session_id] = SessionRecord.opened(
            handle, self._tools, gated=self._gated()
        )
        record.translator.window = self._window()
        return record

    async def prompt(
        self, session_id: SessionId, content: tuple[ContentBlock, ...]
    ) -> PromptResult:
        """Send ``content`` and wait for the turn it starts to end.

        Raises UnknownSessionError, TurnRunningError, TurnFailedError (the turn ended with
        an error; its code travels along), TurnNotStoredError (the turn's end could not be
        stored), and AgentError / SessionError when the first prompt cannot create the
        session. Cancelling the caller cancels the turn, and the
        caller's cancellation is re-raised once that turn has ended.
        """
        record = self._records.get(session_id)
        if record is None:
            raise UnknownSessionError(session_id)
        if record.prompt is not None:
            raise TurnRunningError(session_id)
        pending = record.prompt = PendingPrompt()
        try:
            agent = await self._agent(record, content)
            await agent.when_idle()
            if not pending.cancelling:
                pending.begin(len(agent.session.events))
                agent.send(content)
                await pending.until_ended_or_cancelling()
            await self._land(record, pending)
            return pending.result()
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True), anyio.move_on_after(LANDING_TIMEOUT):
                self.cancel(session_id)
                await self._land(record, pending)
            raise
        finally:
            if record.prompt is pending:
                record.prompt = None

    async def _agent(self, record: SessionRecord, content: tuple[ContentBlock, ...]) -> Agent:
        """The session's agent; the first prompt of a new session creates it (and the stored
        session, titled from ``content``). Raises AgentError / SessionError."""
        if record.handle is None:
            spec = AgentSpec(
                options=self._options(),
                session_id=SessionId(record.session_id),
                cwd=record.cwd,
                title=session_title(content),
            )
            handle = await self._agents.create(spec)
            if self._closed:  # the bridge closed while the agent was being made
                await handle.dispose()
                raise ServerError("dsh-lsp is shutting down")
            record.handle = handle
            record.created_at = handle.agent.session.header.created_at
        return record.handle.agent

    async def _land(self, record: SessionRecord, pending: PendingPrompt) -> None:
        """Wait until the prompt's turn has ended and is stored, settle the prompt, and send
        what the sink holds: after this every update of the turn is on its way to the client.
        Raises TurnNotStoredError when the turn's ``turn/end`` could not be stored."""
        if not pending.settled:
            if record.handle is None or not pending.started:
                pending.cancel()
            else:
                agent = record.handle.agent
                await agent.when_idle()
                pending.reconcile(agent.session.events[pending.watermark :])
        end = pending.end_seq
        if record.gated and end is not None and record.handle is not None:
            if record.stored <= end:  # the loop stores turn/end before the agent goes idle
                await record.handle.agent.when_idle()
            if record.stored <= end:
                self._release(record, everything=True)
                self._sink.flush(record.session_id)
                cause = record.store_error or "the session store did not write it"
                raise TurnNotStoredError(record.session_id, cause)
        self._sink.flush(record.session_id)

    def cancel(self, session_id: SessionId) -> None:
        """Cancel the session's turn; its prompt answers ``cancelled`` once the turn has
        ended. Unknown sessions are ignored (this serves a notification)."""
        record = self._records.get(session_id)
        if record is None:
            _log.info("dsh/cancel for a session that is not open: %s", session_id)
            return
        if record.handle is not None:
            record.handle.agent.cancel("dsh/cancel")
        if record.prompt is not None and not record.prompt.settled:
            record.prompt.request_cancel()

    def on_session_event(self, notice: SessionEventNotice) -> None:
        """``SESSION_EVENT`` listener: render the event, settle a prompt on its turn's end."""
        session_id = notice.session.id
        record = self._records.get(session_id)
        if record is None:
            return
        try:
            event = notice.event
            updates = record.translator.translate(event)
            durable = event.type != ASSISTANT_CHUNK
            if not updates:
                pass
            elif record.gated and (record.held or (durable and event.seq >= record.stored)):
                record.held.append(HeldUpdates(event.seq, durable, updates))
            else:
                for update in updates:
                    self._sink.send(session_id, update)
            pending = record.prompt
            if pending is not None and pending.observe(notice.event):
                self._sink.flush(session_id)
        except Exception:
            _log.exception("rendering event %s of session %s failed", notice.event.seq, session_id)

    def on_stored(self, notice: SessionStored) -> None:
        """``SESSION_STORED`` listener: send the held updates whose events are now durable
        (all of them when the write failed, so the client sees what happened). Never raises."""
        stored, self._stored = self._stored, anyio.Event()
        stored.set()
        record = self._records.get(notice.session.id)
        if record is None:
            return
        try:
            if notice.error is None:
                record.stored = max(record.stored, notice.stored)
                record.store_error = None
                self._release(record)
            else:
                record.store_error = str(notice.error) or type(notice.error).__name__
                self._release(record, everything=True)
        except Exception:
            _log.exception("sending the stored updates of session %s failed", record.session_id)

    async def until_shown(self, session_id: SessionId) -> None:
        """Return once no update of ``session_id`` waits for a write (at most
        ``LANDING_TIMEOUT`` seconds; at once after a failed write). Never raises but
        cancellation."""
        with anyio.move_on_after(LANDING_TIMEOUT):
            while True:
                record = self._records.get(session_id)
                if record is None or record.store_error is not None:
                    return
                if not any(held.durable for held in record.held):
                    return
                await self._stored.wait()

    def _release(self, record: SessionRecord, *, everything: bool = False) -> None:
        """Send the held updates a write made showable, as one delivery: the states of a
        card released together are folded into one update (``fold_cards``)."""
        held = record.held
        released: list[JsonObject] = []
        while held and (everything or not held[0].durable or held[0].seq < record.stored):
            released.extend(held.popleft().updates)
        for update in fold_cards(released):
            self._sink.send(record.session_id, update)

    def on_shell_output(self, output: ShellOutput) -> None:
        """``SHELL_OUTPUT`` listener: the running command's output tail on its tool card
        (behind any update still waiting for its event to be stored, so the card comes
        first). Never raises."""
        session_id = output.session_id
        if session_id is None or output.call_id is None:
            return
        record = self._records.get(session_id)
        if record is None:
            return
        try:
            update = live_output_update(output)
            if record.gated and record.held:
                record.held.append(HeldUpdates(record.held[-1].seq, False, [update]))
            else:
                self._sink.send(record.session_id, update)
        except Exception:
            _log.exception("live output of %s failed", output.task_id)

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

    async def _dispose(self, session_id: SessionId, record: SessionRecord) -> None:
        try:
            if record.handle is not None:
                await record.handle.dispose()
        except Exception:
            _log.exception("disposing the agent of session %s failed", session_id)
        self._sink.forget(session_id)


def _int(value: JsonValue) -> int:
    return value if isinstance(value, int) else 0
