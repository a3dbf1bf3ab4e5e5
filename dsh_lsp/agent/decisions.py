"""Decisions: the values the agent's interception waterfalls return (agent layer).

``agent/prompt-submit`` returns a ``PromptDecision``: let the message in (optionally rewritten,
optionally with context to inject after it) or block it with a reason. ``agent/turn-continuation``
returns a ``ContinuationDecision``: run another step (optionally steering it with a reason) or
stop the turn. Listeners match them exhaustively with ``match`` + ``assert_never``.
"""

from __future__ import annotations

from dataclasses import dataclass

from dsh_lsp.llm import ContentBlock, MessageSource


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptAllow:
    """Log the message as a ``user/message``.

    ``content`` replaces the submitted content when given; ``additional_context`` is injected
    right after it as a ``context/message``.
    """

    content: tuple[ContentBlock, ...] | None = None
    additional_context: tuple[ContentBlock, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptBlock:
    """Log the message as ``prompt/blocked`` instead; the model never sees it."""

    reason: str


PromptDecision = PromptAllow | PromptBlock
"""The outcome of ``agent/prompt-submit``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnContinue:
    """Run another step. ``reason`` is queued as a steering message (from ``source``, by
    default the plugin ``agent/turn-continuation``) so the model learns why it goes on."""

    reason: tuple[ContentBlock, ...] | None = None
    source: MessageSource | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnStop:
    """End the turn after this step (steering that is still waiting overrides this)."""


ContinuationDecision = TurnContinue | TurnStop
"""The outcome of ``agent/turn-continuation``."""
