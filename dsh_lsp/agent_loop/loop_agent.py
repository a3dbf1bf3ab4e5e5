"""LoopAgent: the loop's implementation of ``Agent`` — inbox, status and cancellation (agent_loop).

The public methods only change state and never block; the driver task (``driver``) does the
work. Cancellation is a marker plus the running turn's cancel scope: ``cancel`` arms the
marker (only when there is work), drops waiting messages and cancels the scope, so whatever the
turn awaits stops at once; the driver consults the marker at its windows and ends the turn
``aborted``. Disposal does the same with ``disposed`` and makes the driver exit.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import anyio

from dsh_lsp.agent import (
    AGENT_ERROR,
    AGENT_QUEUED,
    AGENT_STATUS,
    AgentCode,
    AgentError,
    AgentFailure,
    AgentId,
    AgentOptions,
    AgentStatus,
    Inbox,
    InboxMessage,
    PromptContent,
    Queued,
    StatusChange,
    as_blocks,
)
from dsh_lsp.llm import MessageSource, UserSource

from .injection import inject_now

if TYPE_CHECKING:
    from dsh_lsp.session import Session

    from .services import LoopServices

_log = logging.getLogger(__name__)


class LoopAgent:
    """One agent driven by the loop plugin. Created by the loop's factory only."""

    __slots__ = (
        "__weakref__",
        "_cancel_reason",
        "_cancelled",
        "_disposing",
        "_exited",
        "_id",
        "_options",
        "_session",
        "_settled",
        "_status",
        "_tool_cancel",
        "_turn_scope",
        "inbox",
        "pending_context",
        "services",
    )

    def __init__(
        self,
        *,
        agent_id: AgentId,
        options: AgentOptions,
        session: Session,
        services: LoopServices,
    ) -> None:
        self._id = agent_id
        self._options = options
        self._session = session
        self.services = services
        self.inbox = Inbox()
        self.pending_context: list[InboxMessage] = []
        """Context injected while a step was open; the turn logs it at the next safe point."""
        self._status: AgentStatus = "idle"
        self._cancelled = False
        self._cancel_reason: str | None = None
        self._disposing = False
        self._turn_scope: anyio.CancelScope | None = None
        self._tool_cancel: anyio.Event | None = None
        self._exited = anyio.Event()
        self._settled = anyio.Event()

    def __repr__(self) -> str:
        return f"<LoopAgent {self._id!r} {self._status}>"

    # -- the Agent protocol ------------------------------------------------------------------

    @property
    def id(self) -> AgentId:
        """The registry id."""
        return self._id

    @property
    def options(self) -> AgentOptions:
        """The model and prompt settings."""
        return self._options

    @property
    def session(self) -> Session:
        """The agent's session log."""
        return self._session

    @property
    def status(self) -> AgentStatus:
        """idle, running or disposed."""
        return self._status

    def send(self, content: PromptContent, *, source: MessageSource | None = None) -> None:
        """Queue a message for the next turn. Raises AgentError (``AGENT_DISPOSED``)."""
        self._enqueue(content, source, steering=False)

    def steer(self, content: PromptContent, *, source: MessageSource | None = None) -> None:
        """Steer the running turn, or ``send`` when not running. Raises AgentError."""
        self._enqueue(content, source, steering=self._status == "running")

    def inject(self, content: PromptContent, *, source: MessageSource | None = None) -> None:
        """Record context now (idle: a one-turn injection turn) or at the running turn's next
        safe point. Raises AgentError (``AGENT_DISPOSED``); raises what ``Session.append``
        raises for an idle injection."""
        self._ensure_live()
        message = InboxMessage(content=as_blocks(content), source=source or UserSource())
        inject_now(self, message)

    def cancel(self, reason: str | None = None) -> None:
        """Abort the running turn and drop waiting messages; a no-op without work."""
        if self._disposing:
            return
        inbox = self.inbox
        working = (
            self._status == "running"
            or self._turn_scope is not None
            or inbox.has_queued
            or inbox.has_steering
        )
        if not working:
            return
        self._cancelled = True
        self._cancel_reason = reason
        inbox.clear()
        self._interrupt()
        self.notify()

    async def when_idle(self) -> None:
        """Return once idle with nothing queued, or disposed with the driver exited."""
        while not self._is_settled():
            await self._settled.wait()

    # -- used by the driver, the turn and the factory ----------------------------------------

    @property
    def cancel_requested(self) -> bool:
        """True while the cancel marker is armed or the agent is being disposed."""
        return self._cancelled or self._disposing

    @property
    def cancel_reason(self) -> str | None:
        """The reason given to the ``cancel`` that armed the marker."""
        return self._cancel_reason

    @property
    def disposing(self) -> bool:
        """True once disposal began."""
        return self._disposing

    @property
    def exited(self) -> anyio.Event:
        """Set when the driver task has returned."""
        return self._exited

    def reset_cancel(self) -> None:
        """Disarm the marker (once per driver iteration)."""
        self._cancelled = False
        self._cancel_reason = None

    def enter_turn(self, scope: anyio.CancelScope, tool_cancel: anyio.Event) -> None:
        """Record the running turn's cancel scope and the event tools may poll."""
        self._turn_scope = scope
        self._tool_cancel = tool_cancel
        if self.cancel_requested:
            self._interrupt()

    def leave_turn(self) -> None:
        """Forget the finished turn's cancel scope."""
        self._turn_scope = None
        self._tool_cancel = None

    def set_status(self, status: AgentStatus) -> None:
        """Change the status and announce it (contained); no-op when unchanged or after
        disposal."""
        previous = self._status
        if previous == status or previous == "disposed":
            return
        self._status = status
        change = StatusChange(agent=self, status=status, previous=previous)
        self.services.ctx.emit_contained(AGENT_STATUS, change)
        self.notify()

    def report_error(self, turn: int, step: int, error: Exception) -> None:
        """Announce a failure on ``agent/error`` (contained) and log it."""
        _log.warning("agent %r: turn %d step %d failed: %s", self._id, turn, step, error)
        _log.debug("agent %r: the failure's traceback", self._id, exc_info=error)
        failure = AgentFailure(agent=self, turn=turn, step=step, error=error)
        self.services.ctx.emit_contained(AGENT_ERROR, failure)

    def begin_dispose(self) -> None:
        """Start disposal: status ``disposed``, drop waiting messages, stop the turn, wake the
        driver so it exits. Idempotent; never raises."""
        if self._disposing:
            return
        self._disposing = True
        self.set_status("disposed")
        self.inbox.clear()
        self._interrupt()
        self.inbox.wake()
        self.notify()

    def notify(self) -> None:
        """Wake ``when_idle`` waiters so they re-check."""
        self._settled.set()
        self._settled = anyio.Event()

    # -- internals ---------------------------------------------------------------------------

    def _is_settled(self) -> bool:
        if self._disposing:
            return self._exited.is_set()
        return self._status == "idle" and not self.inbox.has_queued

    def _interrupt(self) -> None:
        if self._turn_scope is not None:
            self._turn_scope.cancel()
        if self._tool_cancel is not None:
            self._tool_cancel.set()

    def _ensure_live(self) -> None:
        if self._disposing:
            raise AgentError(f"agent {self._id!r} is disposed", code=AgentCode.AGENT_DISPOSED)

    def _enqueue(
        self, content: PromptContent, source: MessageSource | None, *, steering: bool
    ) -> None:
        self._ensure_live()
        message = InboxMessage(content=as_blocks(content), source=source or UserSource())
        if steering:
            self.inbox.steer(message)
        else:
            self.inbox.queue(message)
        queued = Queued(
            agent=self, content=message.content, source=message.source, steering=steering
        )
        self.services.ctx.emit_contained(AGENT_QUEUED, queued)
        self.notify()
