"""The invariants plugin: a runtime tripwire for log structure and agent status (agent layer).

Loaded in every loop test (and by default in the application, non-strict). It watches
``session/event`` through ``LogRules`` and ``agent/status`` for legal transitions
(idle ⇄ running, either → disposed, nothing after disposed, no repeats). Every violation is
recorded on the ``INVARIANTS`` service; in strict mode it is also raised from the listener,
which fails the turn that caused it (the event itself is already logged).
"""

from __future__ import annotations

import logging
import weakref
from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from dsh_lsp.kernel import Context, DshError, Plugin, ServiceKey
from dsh_lsp.session import SESSION_CREATED, SESSION_EVENT, Session, SessionEventNotice

from .agent import Agent, AgentStatus
from .events import AGENT_DISPOSED, AGENT_STATUS, StatusChange
from .log_rules import LogRules

_log = logging.getLogger(__name__)

_LEGAL: frozenset[tuple[AgentStatus, AgentStatus]] = frozenset(
    {("idle", "running"), ("running", "idle"), ("idle", "disposed"), ("running", "disposed")}
)


class InvariantViolation(DshError):
    """A session log or an agent broke a structural invariant (strict mode only)."""

    code: ClassVar[str] = "INVARIANT_VIOLATION"


class InvariantsConfig(BaseModel):
    """``strict``: raise each violation from the listener that saw it (tests), not just
    record and log it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    strict: bool = False


class InvariantChecker:
    """The ``INVARIANTS`` service: rule state per session and status per agent."""

    __slots__ = ("_last", "_rules", "_status", "strict", "violations")

    def __init__(self, *, strict: bool) -> None:
        self.strict = strict
        self.violations: list[str] = []
        """Every violation seen, oldest first (read by test fixtures)."""
        self._rules: weakref.WeakKeyDictionary[Session, LogRules] = weakref.WeakKeyDictionary()
        self._last: tuple[weakref.ref[Session], LogRules] | None = None
        """The session checked last and its rules: a turn's events come in runs of one
        session, and a weak mapping's lookup costs more than the check it serves."""
        self._status: dict[int, AgentStatus] = {}

    def _report(self, broken: list[str]) -> None:
        if not broken:
            return
        self.violations.extend(broken)
        for violation in broken:
            _log.error("invariant violated: %s", violation)
        if self.strict:
            raise InvariantViolation("; ".join(broken))

    def _rules_for(self, session: Session, *, upto: int) -> LogRules:
        last = self._last
        if last is not None and last[0]() is session:
            return last[1]
        rules = self._rules.get(session)
        if rules is None:
            rules = self._rules[session] = LogRules()
            for event in session.events[:upto]:
                self.violations.extend(rules.check(event))
        self._last = (weakref.ref(session), rules)
        return rules

    def on_created(self, session: Session) -> None:
        """Fold the session's seed (a new or resumed log) into fresh rule state."""
        self._rules.pop(session, None)
        self._last = None
        self._rules_for(session, upto=len(session.events))

    def on_event(self, notice: SessionEventNotice) -> None:
        """Check one appended event. Raises InvariantViolation in strict mode."""
        rules = self._rules_for(notice.session, upto=notice.event.seq)
        self._report(rules.check(notice.event))

    def on_status(self, change: StatusChange) -> None:
        """Check one status change. Raises InvariantViolation in strict mode."""
        key = id(change.agent)
        known = self._status.get(key, "idle")
        broken = []
        where = f"agent {change.agent.id!r}"
        if change.previous != known:
            broken.append(f"{where}: status change from {change.previous!r}, was {known!r}")
        if (change.previous, change.status) not in _LEGAL:
            broken.append(f"{where}: illegal status change {change.previous!r} → {change.status!r}")
        self._status[key] = change.status
        self._report(broken)

    def forget(self, agent: Agent) -> None:
        """Drop the status of an agent that is gone."""
        self._status.pop(id(agent), None)


INVARIANTS: ServiceKey[InvariantChecker] = ServiceKey("invariants")
"""The invariant checker service (its ``violations`` list is what tests assert on)."""


class InvariantsPlugin(Plugin[InvariantsConfig]):
    """Checks every session log and agent status change; provides ``INVARIANTS``."""

    name = "invariants"
    config_model = InvariantsConfig

    async def apply(self, ctx: Context, config: InvariantsConfig) -> None:
        """Provide the checker and listen (prepended, so it sees events first)."""
        checker = InvariantChecker(strict=config.strict)
        ctx.provide(INVARIANTS, checker)
        ctx.on(SESSION_CREATED, checker.on_created, prepend=True)
        ctx.on(SESSION_EVENT, checker.on_event, prepend=True)
        ctx.on(AGENT_STATUS, checker.on_status, prepend=True)
        ctx.on(AGENT_DISPOSED, checker.forget)
