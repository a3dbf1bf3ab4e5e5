"""The raw chunk protocol every adapter streams (llm layer).

One model call yields a sequence of ``StreamChunk`` values:

* ``BlockStart(index, block_type)`` opens block ``index`` (optional: a delta may open it);
* ``TextDelta`` / ``ReasoningDelta`` / ``ToolCallDelta`` extend block ``index``;
* ``BlockEnd(index, block)`` closes it; its ``block`` is authoritative;
* ``UsageChunk`` reports token usage, at most once and always before ``FinishChunk``;
* ``FinishChunk`` ends the stream; nothing follows it.

Indexes are dense small integers allocated by the adapter in first-seen order. Tool-call
arguments stay raw JSON text. A call fails by raising ``LlmError`` from the iterator or by
finishing with ``FinishError``/``FinishAborted``; consumers handle both. ``BlockAssembler``
folds a chunk sequence into a message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from .blocks import ContentBlock
from .finish import FinishReason
from .ids import CallId
from .usage import TokenUsage


@dataclass(frozen=True, slots=True, kw_only=True)
class BlockStart:
    """Block ``index`` begins; ``block_type`` is its block kind (``text``, ``tool-call``…)."""

    kind: ClassVar[Literal["block-start"]] = "block-start"
    index: int
    block_type: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TextDelta:
    """More visible text for block ``index``."""

    kind: ClassVar[Literal["text-delta"]] = "text-delta"
    index: int
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ReasoningDelta:
    """More reasoning text for block ``index``."""

    kind: ClassVar[Literal["reasoning-delta"]] = "reasoning-delta"
    index: int
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallDelta:
    """A fragment of tool call ``index``: id and name usually come only with the first one."""

    kind: ClassVar[Literal["tool-call-delta"]] = "tool-call-delta"
    index: int
    id: CallId | None = None
    name: str | None = None
    arguments_delta: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class BlockEnd:
    """Block ``index`` is complete and equals ``block``."""

    kind: ClassVar[Literal["block-end"]] = "block-end"
    index: int
    block: ContentBlock


@dataclass(frozen=True, slots=True, kw_only=True)
class UsageChunk:
    """Token usage of the call."""

    kind: ClassVar[Literal["usage"]] = "usage"
    usage: TokenUsage


@dataclass(frozen=True, slots=True, kw_only=True)
class FinishChunk:
    """The stream is over, for ``reason``."""

    kind: ClassVar[Literal["finish"]] = "finish"
    reason: FinishReason


StreamChunk = (
    BlockStart | TextDelta | ReasoningDelta | ToolCallDelta | BlockEnd | UsageChunk | FinishChunk
)
"""One element of a model call's stream."""
