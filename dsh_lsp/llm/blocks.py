"""Content blocks: the typed pieces every message is made of (llm layer).

The core kinds are ``text``, ``reasoning``, ``tool-call`` and ``tool-result``. Plugins add kinds
without touching this module: they subclass ``ExtensionBlock`` and register the class with
``register_block_type`` (see ``block_registry``; the mechanism is ``vocabulary``). A record of a
kind nobody registered decodes to an ``OpaqueBlock`` that keeps its JSON. ``ContentBlock`` is
therefore a union closed over four core classes plus the ``ExtensionBlock`` base, so ``match``
stays exhaustive and ends in the documented default for plugin kinds::

    match block:
        case TextBlock() | ReasoningBlock() | ToolCallBlock() | ToolResultBlock(): ...
        case ExtensionBlock(): ...   # default: every plugin kind, handled generically or skipped
        case _: assert_never(block)

There is no image block: the core set holds only kinds every shipping path honours.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from .ids import CallId
from .vocabulary import Extension, Opaque


@dataclass(frozen=True, slots=True, kw_only=True)
class TextBlock:
    """Visible text written by a user, the model or a tool."""

    kind: ClassVar[Literal["text"]] = "text"
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ReasoningBlock:
    """The model's thinking, kept apart from its answer."""

    kind: ClassVar[Literal["reasoning"]] = "reasoning"
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallBlock:
    """A request by the model to run one tool."""

    kind: ClassVar[Literal["tool-call"]] = "tool-call"
    id: CallId
    """The model's id for this call; the matching result quotes it."""
    name: str
    """The tool's name as the model wrote it."""
    arguments: str
    """The arguments exactly as streamed: raw JSON text, validated only by the tool layer."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultBlock:
    """The outcome of one tool call; it rides in a user-role message."""

    kind: ClassVar[Literal["tool-result"]] = "tool-result"
    tool_call_id: CallId
    content: tuple[ContentBlock, ...]
    is_error: bool = False
    """True when the tool failed; the content then carries the error text."""


class ExtensionBlock(Extension):
    """Base of every plugin-defined block kind.

    A subclass is a frozen dataclass with a unique ``kind`` class attribute (it must not be a
    core kind), converts its own fields to and from a JSON object (``to_json`` without the
    ``type`` tag), and is registered with ``register_block_type`` so persisted records decode
    back to it. Adapters send only the kinds they know; an extension kind reaches a model once
    its adapter maps it.
    """

    __slots__ = ()


class OpaqueBlock(Opaque, ExtensionBlock):
    """A block of a kind no loaded plugin registered: its record (tag ``type``), as read."""

    __slots__ = ()


ContentBlock = TextBlock | ReasoningBlock | ToolCallBlock | ToolResultBlock | ExtensionBlock
"""One piece of message content: a core kind, or a registered plugin kind."""

CORE_BLOCK_KINDS: frozenset[str] = frozenset({"text", "reasoning", "tool-call", "tool-result"})
"""The kinds owned by this module; no extension may claim them."""
