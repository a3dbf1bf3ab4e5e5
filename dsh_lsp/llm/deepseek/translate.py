"""Wire chunks → harness chunks: the pure streaming state machine (llm.deepseek layer).

Rules (one translator per model call):

* a ``reasoning_content`` delta opens the reasoning block; an empty one (the first delta of a
  thinking answer carries ``""``) opens nothing;
* a non-empty ``content`` delta opens the text block;
* each ``tool_calls`` entry belongs to the tool-call block of its wire ``index``; ``id`` and
  ``name`` come with a call's first fragment; a fragment without an ``index`` continues the
  last call unless it brings a new id;
* harness indexes are allocated 0, 1, 2… in first-seen order;
* a call the stream never gave an id gets ``call_<uuid4 hex>`` in its ``BlockEnd``, so ids
  stay unique across the steps of a conversation;
* ``finish_reason`` and ``usage`` are held back until ``finish()`` (the ``[DONE]`` sentinel),
  which emits every ``BlockEnd`` in opening order, then the usage (last report wins), then the
  finish. ``length`` maps to max-tokens; ``stop`` or no reason maps to tool-calls when the
  answer holds tool calls (some OpenAI-compatible servers say ``stop`` there), else to stop;
  any other reason finishes with an error coded by the upper-cased reason.

Usage: cache hits (``prompt_tokens_details.cached_tokens``, else ``prompt_cache_hit_tokens``)
are subtracted from ``prompt_tokens`` so input counts stay disjoint.
"""

from __future__ import annotations

import uuid

from dsh_lsp.llm.blocks import ContentBlock, ReasoningBlock, TextBlock, ToolCallBlock
from dsh_lsp.llm.chunks import (
    BlockEnd,
    BlockStart,
    FinishChunk,
    ReasoningDelta,
    StreamChunk,
    TextDelta,
    ToolCallDelta,
    UsageChunk,
)
from dsh_lsp.llm.errors import LlmCode, LlmError
from dsh_lsp.llm.finish import (
    FinishError,
    FinishMaxTokens,
    FinishReason,
    FinishStop,
    FinishToolCalls,
)
from dsh_lsp.llm.ids import CallId
from dsh_lsp.llm.usage import TokenUsage

from .wire import ChatChunk, ToolCallFragment, WireUsage


def usage_from_wire(usage: WireUsage) -> TokenUsage:
    """Map reported usage to disjoint counts (cache hits taken out of the input)."""
    details = usage.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens")
    if cached is None:
        cached = usage.get("prompt_cache_hit_tokens")
    completion = usage.get("completion_tokens_details") or {}
    return TokenUsage(
        input_tokens=(usage.get("prompt_tokens") or 0) - (cached or 0),
        output_tokens=usage.get("completion_tokens") or 0,
        cache_read_tokens=cached,
        reasoning_tokens=completion.get("reasoning_tokens"),
    )


def finish_from_wire(reason: str | None, *, has_tool_calls: bool) -> FinishReason:
    """Map a wire ``finish_reason`` to a harness finish reason."""
    match reason:
        case None | "stop" | "tool_calls" if has_tool_calls:
            return FinishToolCalls()
        case None | "stop":
            return FinishStop()
        case "tool_calls":
            return FinishToolCalls()
        case "length":
            return FinishMaxTokens()
        case _:
            return FinishError(message=f"the model stopped: {reason}", code=reason.upper())


class _Channel:
    """The text or reasoning block being streamed: its harness index once opened, its pieces."""

    __slots__ = ("block_type", "index", "parts")

    def __init__(self, block_type: str) -> None:
        self.block_type = block_type
        self.index: int | None = None
        self.parts: list[str] = []


class _Call:
    """A tool call being streamed: its harness index, last id and name, argument pieces."""

    __slots__ = ("id", "index", "name", "parts")

    def __init__(self, index: int) -> None:
        self.index = index
        self.id: str | None = None
        self.name: str | None = None
        self.parts: list[str] = []


class StreamTranslator:
    """Feeds on validated wire chunks and emits harness chunks; see the module rules."""

    __slots__ = (
        "_calls",
        "_finish_reason",
        "_last_call",
        "_next_index",
        "_reasoning",
        "_text",
        "_usage",
    )

    def __init__(self) -> None:
        self._next_index = 0
        self._reasoning = _Channel("reasoning")
        self._text = _Channel("text")
        self._calls: dict[int, _Call] = {}
        self._last_call: int | None = None
        self._finish_reason: str | None = None
        self._usage: WireUsage | None = None

    def _open(self, block_type: str, out: list[StreamChunk]) -> int:
        index = self._next_index
        self._next_index += 1
        out.append(BlockStart(index=index, block_type=block_type))
        return index

    def _grow(self, channel: _Channel, text: str, out: list[StreamChunk]) -> int:
        """Append ``text`` to ``channel``, opening its block first; return its index."""
        if channel.index is None:
            channel.index = self._open(channel.block_type, out)
        channel.parts.append(text)
        return channel.index

    def feed(self, chunk: ChatChunk) -> list[StreamChunk]:
        """The harness chunks for one wire chunk (often one, sometimes none).

        Raises ``LlmError`` (``SERVER``) when the chunk is an in-stream error object.
        """
        error = chunk.get("error")
        if error is not None:
            provider_message = error.get("message")
            message = provider_message or "the provider reported an error mid-stream"
            raise LlmError(
                f"model API error: {message}",
                code=LlmCode.SERVER,
                provider_message=provider_message,
            )
        usage = chunk.get("usage")
        if usage is not None:
            self._usage = usage
        choices = chunk.get("choices")
        if not choices:
            return []
        choice = choices[0]
        finish_reason = choice.get("finish_reason")
        if finish_reason is not None:
            self._finish_reason = finish_reason
        delta = choice.get("delta")
        if delta is None:
            return []
        out: list[StreamChunk] = []
        reasoning = delta.get("reasoning_content")
        if reasoning:
            index = self._grow(self._reasoning, reasoning, out)
            out.append(ReasoningDelta(index=index, text=reasoning))
        content = delta.get("content")
        if content:
            out.append(TextDelta(index=self._grow(self._text, content, out), text=content))
        tool_calls = delta.get("tool_calls")
        if tool_calls:
            for fragment in tool_calls:
                self._tool_fragment(fragment, out)
        return out

    def _tool_fragment(self, fragment: ToolCallFragment, out: list[StreamChunk]) -> None:
        wire_index = fragment.get("index")
        call_id = fragment.get("id")
        if wire_index is None:
            last = self._last_call
            if last is None or (call_id is not None and call_id != self._calls[last].id):
                wire_index = max(self._calls, default=-1) + 1
            else:
                wire_index = last
        call = self._calls.get(wire_index)
        if call is None:
            call = self._calls[wire_index] = _Call(self._open("tool-call", out))
        self._last_call = wire_index
        function = fragment.get("function") or {}
        name = function.get("name")
        arguments = function.get("arguments") or ""
        if call_id is not None:
            call.id = call_id
        if name is not None:
            call.name = name
        call.parts.append(arguments)
        out.append(
            ToolCallDelta(
                index=call.index,
                id=None if call_id is None else CallId(call_id),
                name=name,
                arguments_delta=arguments,
            )
        )

    def _blocks(self) -> list[tuple[int, ContentBlock]]:
        blocks: list[tuple[int, ContentBlock]] = []
        if self._reasoning.index is not None:
            text = "".join(self._reasoning.parts)
            blocks.append((self._reasoning.index, ReasoningBlock(text=text)))
        if self._text.index is not None:
            blocks.append((self._text.index, TextBlock(text="".join(self._text.parts))))
        for call in self._calls.values():
            if call.id is None:
                call.id = f"call_{uuid.uuid4().hex}"
            call_id = CallId(call.id)
            arguments = "".join(call.parts)
            block = ToolCallBlock(id=call_id, name=call.name or "", arguments=arguments)
            blocks.append((call.index, block))
        return sorted(blocks, key=lambda pair: pair[0])

    def finish(self) -> list[StreamChunk]:
        """The closing chunks, emitted when ``[DONE]`` arrives: block ends, usage, finish."""
        out: list[StreamChunk] = [BlockEnd(index=i, block=b) for i, b in self._blocks()]
        if self._usage is not None:
            out.append(UsageChunk(usage=usage_from_wire(self._usage)))
        reason = finish_from_wire(self._finish_reason, has_tool_calls=bool(self._calls))
        out.append(FinishChunk(reason=reason))
        return out
