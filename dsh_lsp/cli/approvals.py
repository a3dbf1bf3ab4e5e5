"""Terminal approvals: the runner's permission service, asking on stderr/stdin (cli layer).

``TerminalApprovalPlugin`` provides ``PERMISSIONS`` (``TerminalPermissions``) and turns the
``Allow`` of every call of a tool that is not read-only into ``Ask``, so ``dsh-lsp run`` asks
before anything changes files or runs commands (``--yes`` approves everything; without a
terminal to answer, every such call is refused).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ClassVar, TextIO

import anyio
import anyio.to_thread

from dsh_lsp.kernel import Context, Plugin
from dsh_lsp.tools import (
    PERMISSIONS,
    TOOLS,
    TOOLS_PRE_EXECUTE,
    Allow,
    Ask,
    PermissionOutcome,
    PreToolDecision,
    ToolCallView,
    ToolExecution,
)


class TerminalPermissions:
    """A ``PermissionService`` for a terminal: approve everything (``--yes``), refuse when
    nobody can answer (no TTY), or ask on ``prompt``/``answer`` (stderr/stdin)."""

    __slots__ = ("_answer", "_interactive", "_lock", "_prompt", "_yes")

    def __init__(
        self,
        *,
        yes: bool,
        interactive: bool,
        prompt: TextIO,
        answer: Callable[[], str],
    ) -> None:
        self._yes = yes
        self._interactive = interactive
        self._prompt = prompt
        self._answer = answer
        self._lock = anyio.Lock()
        """One question at a time: concurrent read-only calls must not race for stdin."""

    async def request(
        self, exec: ToolExecution, view: ToolCallView, reason: str | None
    ) -> PermissionOutcome:
        """The answer for one call: ``y`` once, ``a`` always (this session), else reject.

        Questions are asked one at a time. Cancelling the turn (Ctrl-C) abandons a pending
        question at once; the line the user may still type is discarded. Never raises but
        for cancellation.
        """
        if self._yes:
            return "allow_once"
        if not self._interactive:
            return "reject_once"
        why = f" ({reason})" if reason else ""
        async with self._lock:
            self._prompt.write(f"Allow {view.title}{why}? [y]es / [a]lways / [N]o: ")
            self._prompt.flush()
            answer = await anyio.to_thread.run_sync(self._answer, abandon_on_cancel=True)
        reply = answer.strip().lower()
        if reply in ("y", "yes"):
            return "allow_once"
        if reply in ("a", "always"):
            return "allow_always"
        return "reject_once"


class TerminalApprovalPlugin(Plugin[None]):
    """Provides ``PERMISSIONS`` (``TerminalPermissions``) and asks before every call of a tool
    that is not read-only (a ``tools/pre-execute`` listener that turns ``Allow``
    into ``Ask``); injects ``TOOLS``."""

    name: ClassVar[str] = "terminal-approval"
    inject = (TOOLS,)

    def __init__(self, permissions: TerminalPermissions) -> None:
        self.permissions = permissions

    async def apply(self, ctx: Context, config: None) -> None:
        """Provide the service and the policy listener, owned by this plugin's fiber."""
        tools = ctx.require(TOOLS)
        ctx.provide(PERMISSIONS, self.permissions)

        async def ask_for_changes(
            execution: ToolExecution, proceed: Callable[[], Awaitable[PreToolDecision]]
        ) -> PreToolDecision:
            decision = await proceed()
            if isinstance(decision, Allow) and not tools.is_read_only(execution.name):
                return Ask(reason="it may change files or run commands")
            return decision

        ctx.on(TOOLS_PRE_EXECUTE, ask_for_changes)
