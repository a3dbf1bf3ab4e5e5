"""The request a model call is made from (llm layer).

Every field is honoured end to end by the shipping adapter; a knob without a working path has
no field. ``LlmRequest.model`` picks the adapter through ``LlmService``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .ids import SessionId
from .json_value import JsonObject
from .message import Message


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSchema:
    """A tool the model may call: its name, what it does, and a JSON Schema for its arguments."""

    name: str
    description: str
    parameters: JsonObject
    """A JSON Schema object, treated as read-only."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LlmRequest:
    """Everything one model call needs."""

    model: str
    """The model name, sent to the provider verbatim."""
    messages: tuple[Message, ...]
    system: str | None = None
    """The system prompt, sent ahead of ``messages`` when present."""
    tools: tuple[ToolSchema, ...] = ()
    temperature: float | None = None
    max_tokens: int | None = None
    """The output budget (reasoning included where the provider counts it so)."""
    stop: tuple[str, ...] | None = None
    """Sequences that end generation when produced."""
    session_id: SessionId | None = None
    """The calling session, for wrappers that keep per-session state (replay, caching)."""
