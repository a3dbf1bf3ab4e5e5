"""The permission seam: who approves a call a policy marked ``Ask`` (tools layer).

The registry asks the ``PERMISSIONS`` service, when one is provided (the language server
provides one that prompts in the editor; the headless runner asks on the TTY). Without a
provider an ``Ask`` is refused with a clear reason. ``allow_always`` and ``reject_always``
answers are remembered per session and tool for the registry's lifetime (``PermissionMemory``),
so the same question is never asked twice in one session.
"""

from __future__ import annotations

from typing import Literal, Protocol

from dsh_lsp.kernel import ServiceKey
from dsh_lsp.llm import SessionId

from .definition import ToolExecution
from .presentation import ToolCallView

PermissionOutcome = Literal[
    "allow_once", "allow_always", "reject_once", "reject_always", "cancelled"
]
"""The user's answer; ``cancelled`` means the request ended with no answer."""

Remembered = Literal["allow", "reject"]
"""A standing answer for one session and tool."""


class PermissionService(Protocol):
    """Asks someone (the user, a policy engine) whether a call may run."""

    async def request(
        self, exec: ToolExecution, view: ToolCallView, reason: str | None
    ) -> PermissionOutcome:
        """The answer for this call; ``view`` is how to show it, ``reason`` why it is asked.

        May raise; the registry turns any error into an error result for the call.
        """
        ...


PERMISSIONS: ServiceKey[PermissionService] = ServiceKey("permissions")
"""The permission service, when a front end provides one."""


class PermissionMemory:
    """Standing ``always`` answers, keyed by session id (None: no session) and tool name."""

    __slots__ = ("_answers",)

    def __init__(self) -> None:
        self._answers: dict[tuple[SessionId | None, str], Remembered] = {}

    def recall(self, session: SessionId | None, tool: str) -> Remembered | None:
        """The standing answer for this session and tool, if any."""
        return self._answers.get((session, tool))

    def remember(self, session: SessionId | None, tool: str, answer: Remembered) -> None:
        """Record a standing answer (a later one replaces an earlier one)."""
        self._answers[(session, tool)] = answer
