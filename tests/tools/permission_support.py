"""A scripted permission service for the permission tests."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from dsh_lsp.tools import (
    Ask,
    PermissionOutcome,
    PreToolDecision,
    ToolCallView,
    ToolExecution,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    """One question the service was asked."""

    execution: ToolExecution
    view: ToolCallView
    reason: str | None


@dataclass(slots=True, kw_only=True)
class ScriptedPermissions:
    """Answers each request with the next scripted outcome and records the question."""

    answers: list[PermissionOutcome]
    requests: list[Request] = field(default_factory=list)

    async def request(
        self, exec: ToolExecution, view: ToolCallView, reason: str | None
    ) -> PermissionOutcome:
        self.requests.append(Request(execution=exec, view=view, reason=reason))
        return self.answers.pop(0)


def ask(
    reason: str | None = None,
) -> Callable[
    [ToolExecution, Callable[[], Awaitable[PreToolDecision]]], Awaitable[PreToolDecision]
]:
    """A pre-execute listener that asks for every call."""

    async def listener(
        execution: ToolExecution, next_: Callable[[], Awaitable[PreToolDecision]]
    ) -> PreToolDecision:
        return Ask(reason=reason)

    return listener
