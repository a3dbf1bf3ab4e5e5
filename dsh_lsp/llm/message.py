"""Messages and message sources (llm layer).

A ``Message`` is a role plus an ordered tuple of content blocks. There is no tool role: tool
results travel as ``ToolResultBlock``s inside user messages, and each adapter maps them to its
provider's shape. A ``MessageSource`` records who queued a user-side message; it is an open
vocabulary (see ``vocabulary``): plugins add source kinds by subclassing ``ExtensionSource``
and registering the class with ``MESSAGE_SOURCES``; an unregistered kind decodes to an
``OpaqueSource``. Readers ``match`` the two core kinds, then ``case ExtensionSource():`` as the
documented default (a plugin source is rendered by its ``kind`` alone).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final, Literal

from .blocks import ContentBlock
from .vocabulary import Extension, Opaque, Vocabulary

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


class ExtensionSource(Extension):
    """Base of every plugin-defined message source kind (record tag ``kind``)."""

    __slots__ = ()


class OpaqueSource(Opaque, ExtensionSource):
    """A source of a kind no loaded plugin registered: its record (tag ``kind``), as read."""

    __slots__ = ()
    tag: ClassVar[str] = "kind"


MessageSource = UserSource | PluginSource | ExtensionSource
"""Who queued a user-side message: a core kind, or a plugin kind."""

MESSAGE_SOURCES: Final = Vocabulary[ExtensionSource](
    "message source",
    ("user", "plugin"),
    OpaqueSource,
)
"""Plugin message source kinds: ``ctx.effect(lambda: MESSAGE_SOURCES.register(cls))``."""
