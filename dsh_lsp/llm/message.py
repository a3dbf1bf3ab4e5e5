"""Messages and message sources (llm layer).

A ``Message`` is a role plus an ordered tuple of content blocks. There is no tool role: tool
results travel as ``ToolResultBlock``s inside user messages, and each adapter maps them to its
provider's shape. A ``MessageSource`` records who queued a user-side message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from .blocks import ContentBlock

Role = Literal["system", "user", "assistant"]
"""Who speaks a message."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Message:
    """One turn of the conversation as the model sees it."""

    role: Role
    content: tuple[ContentBlock, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class UserSource:
    """The message was typed by the person at the editor."""

    kind: ClassVar[Literal["user"]] = "user"


@dataclass(frozen=True, slots=True, kw_only=True)
class PluginSource:
    """The message was produced by a plugin; ``plugin`` names it (rendered into envelopes)."""

    kind: ClassVar[Literal["plugin"]] = "plugin"
    plugin: str


MessageSource = UserSource | PluginSource
"""Who queued a user-side message."""
