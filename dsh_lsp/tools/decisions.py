"""Decisions: what interception listeners answer around a tool call (tools layer).

``tools/pre-execute`` listeners return a ``PreToolDecision`` before the tool runs: ``Allow``,
``Deny(reason)`` or ``Ask(reason)`` (route the call to the permission service). They may not
rewrite the arguments: the ``tool/call`` event holding them is already logged.

``tools/post-execute`` listeners return a ``PostToolDecision`` once the result exists (a
failure result included): ``Accept`` keeps it or replaces its content, ``Block(feedback)``
turns it into an error result carrying the feedback. Both may add ``additional_context``,
which the caller injects after all results of the step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from dsh_lsp.llm import ContentBlock

from .definition import ToolExecution, ToolResult


@dataclass(frozen=True, slots=True, kw_only=True)
class Allow:
    """Run the call."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Deny:
    """Refuse the call; the model reads ``Error: <reason>``."""

    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Ask:
    """Run the call only if the permission service (the user) approves it."""

    reason: str | None = None


PreToolDecision = Allow | Deny | Ask
"""The answer of the ``tools/pre-execute`` waterfall."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Accept:
    """Keep the result; ``content``, when given, replaces what the model reads."""

    content: tuple[ContentBlock, ...] | None = None
    additional_context: tuple[ContentBlock, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Block:
    """Replace the result with an error result whose text is ``feedback``."""

    feedback: str
    additional_context: tuple[ContentBlock, ...] | None = None


PostToolDecision = Accept | Block
"""The answer of the ``tools/post-execute`` waterfall."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PostExecutePayload:
    """What ``tools/post-execute`` listeners see: the call and its (pre-decision) result."""

    exec: ToolExecution
    result: ToolResult


@dataclass(frozen=True, slots=True, kw_only=True)
class ExecutionOutcome:
    """What ``ToolRegistry.execute`` returns: the final result and context to inject later."""

    result: ToolResult
    additional_context: tuple[ContentBlock, ...] = ()


def outside_read_decision(
    decision: Ask, level: Literal["ask", "allow", "deny"], tool: str, setting: str
) -> PreToolDecision:
    """What a read-only ``tool`` that ``decision`` asks about (a read outside the workspace)
    becomes under the user's ``level`` for such reads; ``setting`` names where that level is
    set (a setting or a flag), for the refusal reason. Never raises."""
    match level:
        case "allow":
            return Allow()
        case "deny":
            why = decision.reason or f"{tool} would read outside the workspace"
            return Deny(reason=f"{why}, and {setting} is 'deny'")
        case "ask":
            return decision
