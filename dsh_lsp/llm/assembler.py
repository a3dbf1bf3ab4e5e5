"""BlockAssembler: the one fold from a chunk stream to an assistant message (llm layer).

Tolerance rules, so every adapter and every recorded stream assembles the same way:

* blocks keep the order their index was first seen in, whatever the index values are;
* a delta for an index with no ``BlockStart`` opens the block (delta-only streams work);
* ``BlockEnd`` is authoritative: its block replaces whatever was assembled, and later deltas
  for that index are ignored;
* text and reasoning deltas concatenate; a tool call keeps the last non-empty id and name it
  was given (an empty one erases nothing) and concatenates argument fragments; a call that
  never got an id is ``call-<index>``;
* a delta of a different kind than its block is ignored; a plugin-kind block appears only once
  its ``BlockEnd`` arrives;
* the last ``UsageChunk`` wins; without a ``FinishChunk`` the finish reason is ``stop``;
* chunks after ``FinishChunk`` are ignored.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterable
from dataclasses import dataclass
from typing import assert_never

from .blocks import ContentBlock, ReasoningBlock, TextBlock, ToolCallBlock
from .chunks import (
    BlockEnd,
    BlockStart,
    FinishChunk,
    ReasoningDelta,
    StreamChunk,
    TextDelta,
    ToolCallDelta,
    UsageChunk,
)
from .finish import FinishReason, FinishStop
from .ids import CallId
from .message import Message
from .usage import TokenUsage

_log = logging.getLogger(__name__)


class _Partial:
    """The mutable state of one block while its deltas arrive."""

    __slots__ = ("block_type", "call_id", "done", "name", "parts")

    def __init__(self, block_type: str) -> None:
        self.block_type = block_type
        self.parts: list[str] = []
        self.call_id: CallId | None = None
        self.name: str | None = None
        self.done: ContentBlock | None = None

    def build(self, index: int) -> ContentBlock | None:
        if self.done is not None:
            return self.done
        match self.block_type:
            case "text":
                return TextBlock(text="".join(self.parts))
            case "reasoning":
                return ReasoningBlock(text="".join(self.parts))
            case "tool-call":
                return ToolCallBlock(
                    id=self.call_id if self.call_id is not None else CallId(f"call-{index}"),
                    name=self.name or "",
                    arguments="".join(self.parts),
                )
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class AssembledResponse:
    """The folded result of one model call."""

    message: Message
    """The assistant message, blocks in first-seen order."""
    usage: TokenUsage | None
    finish: FinishReason


class BlockAssembler:
    """Folds ``StreamChunk``s into an assistant message; one instance per model call.

    Not thread-safe; never raises on odd streams (see the module rules).
    """

    __slots__ = ("_blocks", "_finish", "_finished", "_usage")

    def __init__(self) -> None:
        self._blocks: dict[int, _Partial] = {}
        self._usage: TokenUsage | None = None
        self._finish: FinishReason = FinishStop()
        self._finished = False

    def _partial(self, index: int, block_type: str) -> _Partial | None:
        partial = self._blocks.get(index)
        if partial is None:
            partial = self._blocks[index] = _Partial(block_type)
        if partial.done is not None or partial.block_type != block_type:
            return None
        return partial

    def feed(self, chunk: StreamChunk) -> None:
        """Apply one chunk."""
        if self._finished:
            _log.debug("ignoring %s after finish", chunk.kind)
            return
        match chunk:
            case TextDelta(index=index, text=text):
                partial = self._partial(index, "text")
                if partial is not None:
                    partial.parts.append(text)
            case ReasoningDelta(index=index, text=text):
                partial = self._partial(index, "reasoning")
                if partial is not None:
                    partial.parts.append(text)
            case ToolCallDelta(index=index):
                partial = self._partial(index, "tool-call")
                if partial is not None:
                    if chunk.id:
                        partial.call_id = chunk.id
                    if chunk.name:
                        partial.name = chunk.name
                    partial.parts.append(chunk.arguments_delta)
            case BlockStart(index=index, block_type=block_type):
                if index not in self._blocks:
                    self._blocks[index] = _Partial(block_type)
            case BlockEnd(index=index, block=block):
                partial = self._blocks.get(index)
                if partial is None:
                    partial = self._blocks[index] = _Partial(block.kind)
                partial.done = block
            case UsageChunk(usage=usage):
                self._usage = usage
            case FinishChunk(reason=reason):
                self._finish = reason
                self._finished = True
            case _:
                assert_never(chunk)

    def block(self, index: int) -> ContentBlock | None:
        """The block at ``index`` as assembled so far, or ``None`` if unknown or unbuildable."""
        partial = self._blocks.get(index)
        return None if partial is None else partial.build(index)

    def content(self) -> tuple[ContentBlock, ...]:
        """Every buildable block so far, in first-seen order."""
        built = (partial.build(index) for index, partial in self._blocks.items())
        return tuple(block for block in built if block is not None)

    @property
    def usage(self) -> TokenUsage | None:
        """The last usage reported, if any."""
        return self._usage

    @property
    def finish(self) -> FinishReason:
        """The finish reason received, or ``FinishStop()`` when none arrived."""
        return self._finish

    def result(self) -> AssembledResponse:
        """The assembled message with its usage and finish reason."""
        message = Message(role="assistant", content=self.content())
        return AssembledResponse(message=message, usage=self._usage, finish=self._finish)


async def assemble(stream: AsyncIterable[StreamChunk]) -> AssembledResponse:
    """Consume ``stream`` to the end and fold it; the non-streaming way to call a model.

    Raises whatever the stream raises (``LlmError`` from adapters). The caller owns ``stream``
    and closes it if this call is cancelled.
    """
    assembler = BlockAssembler()
    async for chunk in stream:
        assembler.feed(chunk)
    return assembler.result()
