"""Wire chunks → harness chunks: the pure streaming state machine (llm.deepseek layer).

Rules (one translator per model call):

* reasoning comes as ``reasoning_content`` or ``reasoning`` (the first one present is read,
  so a server sending both is not doubled); the field it came in is ``reasoning_field``, which
  the adapter uses to send reasoning back the way that server takes it; an empty delta (the
  first delta of a thinking answer carries ``""``) opens nothing;
* inline ``<think>…</think>`` at the very start of ``content`` (llama.cpp, Ollama or vLLM
  serving a reasoning model without a reasoning parser) is read as reasoning in mode
  ``"auto"``; ``"on"`` also reads an answer that starts inside the thinking (a template that
  opened the tag itself) up to ``</think>``; ``"off"`` keeps content verbatim. Tags split
  across chunks are recognised, and text that turns out not to be a tag is released intact;
* a non-empty ``content`` delta opens the text block;
* each ``tool_calls`` entry belongs to the call of its wire ``index``; ``id`` and ``name``
  come with a call's first fragment, and an empty or missing ``id``, ``index`` or ``name`` on
  a later fragment never replaces a known one (DashScope sends ``"id": ""`` on every follow-on
  fragment); a fragment without an ``index`` continues the last call unless it brings a new
  id; a new id on an index that already has one is a new call (servers that number every
  parallel call 0);
* harness indexes are allocated 0, 1, 2… in first-seen order;
* a call the stream never gave an id gets ``call_<uuid4 hex>`` in its ``BlockEnd``, so ids
  stay unique across the steps of a conversation;
* a whole non-streamed ``message`` (a server that ignored ``stream``) reads as one delta;
* ``finish_reason`` and ``usage`` are held back until ``finish()`` (the ``[DONE]`` sentinel),
  which emits every ``BlockEnd`` in opening order, then the usage (last report wins), then the
  finish. ``length`` maps to max-tokens; ``stop`` or no reason maps to tool-calls when the
  answer holds tool calls (some OpenAI-compatible servers say ``stop`` there), else to stop;
  any other reason finishes with an error coded by the upper-cased reason;
* an ``error`` object in a chunk raises ``LlmError`` coded by its fields (``http_errors``).

Usage: cache hits (``prompt_tokens_details.cached_tokens``, else ``prompt_cache_hit_tokens``)
are subtracted from ``prompt_tokens`` so input counts stay disjoint.
"""

from __future__ import annotations

import uuid
from typing import Literal

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
from dsh_lsp.llm.finish import (
    FinishError,
    FinishMaxTokens,
    FinishReason,
    FinishStop,
    FinishToolCalls,
)
from dsh_lsp.llm.ids import CallId
from dsh_lsp.llm.usage import TokenUsage

from .endpoint import ReasoningField
from .http_errors import error_from_payload
from .wire import ChatChunk, Delta, ToolCallFragment, WireUsage

ThinkTags = Literal["auto", "on", "off"]
"""How ``<think>…</think>`` inside ``content`` is read (see the module rules)."""

_OPEN = "<think>"
_CLOSE = "</think>"


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


def _partial_suffix(text: str, tag: str) -> int:
    """The length of the longest end of ``text`` that could begin ``tag``."""
    for size in range(min(len(text), len(tag) - 1), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0


class ThinkSplitter:
    """Splits streamed ``content`` into reasoning and text by inline think tags (pure)."""

    __slots__ = ("_buffer", "_mode", "_state")

    def __init__(self, mode: ThinkTags) -> None:
        self._mode = mode
        self._state = "text" if mode == "off" else "start"
        self._buffer = ""

    def feed(self, text: str) -> list[tuple[str, str]]:
        """``(block_type, piece)`` pairs for the next piece of content, in order."""
        out: list[tuple[str, str]] = []
        self._buffer += text
        while self._buffer:
            if self._state == "text":
                out.append(("text", self._buffer))
                self._buffer = ""
            elif self._state == "start":
                head = self._buffer.lstrip()
                if not head or (_OPEN.startswith(head) and len(head) < len(_OPEN)):
                    break
                if head.startswith(_OPEN):
                    self._state, self._buffer = "open", head[len(_OPEN) :]
                elif self._mode == "on":
                    self._state = "think"
                else:
                    self._state = "text"
            elif self._state == "think":
                end = self._buffer.find(_CLOSE)
                if end >= 0:
                    if end:
                        out.append(("reasoning", self._buffer[:end]))
                    self._state, self._buffer = "after", self._buffer[end + len(_CLOSE) :]
                    continue
                keep = _partial_suffix(self._buffer, _CLOSE)
                if len(self._buffer) > keep:
                    out.append(("reasoning", self._buffer[: len(self._buffer) - keep]))
                self._buffer = self._buffer[len(self._buffer) - keep :]
                break
            else:  # "open"/"after": blank lines around the thinking are dropped
                self._buffer = self._buffer.lstrip()
                if self._buffer:
                    self._state = "think" if self._state == "open" else "text"
        return out

    def close(self) -> list[tuple[str, str]]:
        """What is still held back when the content ends."""
        rest, self._buffer = self._buffer, ""
        if not rest:
            return []
        return [("reasoning" if self._state in ("open", "think") else "text", rest)]


class _Call:
    """A tool call being streamed: its harness index, id and name once known, argument pieces."""

    __slots__ = ("id", "index", "name", "parts")

    def __init__(self, index: int) -> None:
        self.index = index
        self.id: str | None = None
        self.name: str | None = None
        self.parts: list[str] = []


class StreamTranslator:
    """Feeds on validated wire chunks and emits harness chunks; see the module rules."""

    __slots__ = (
        "_by_id",
        "_by_index",
        "_calls",
        "_finish_reason",
        "_last_call",
        "_next_index",
        "_reasoning",
        "_splitter",
        "_text",
        "_usage",
        "reasoning_field",
    )

    def __init__(self, *, think_tags: ThinkTags = "auto") -> None:
        self._next_index = 0
        self._reasoning = _Channel("reasoning")
        self._text = _Channel("text")
        self._splitter = ThinkSplitter(think_tags)
        self._calls: dict[int, _Call] = {}
        self._by_index: dict[int, int] = {}
        self._by_id: dict[str, int] = {}
        self._last_call: int | None = None
        self._finish_reason: str | None = None
        self._usage: WireUsage | None = None
        self.reasoning_field: ReasoningField | None = None
        """The field this stream's reasoning came in, once some did."""

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

    def _emit(self, block_type: str, text: str, out: list[StreamChunk]) -> None:
        if block_type == "reasoning":
            out.append(ReasoningDelta(index=self._grow(self._reasoning, text, out), text=text))
        else:
            out.append(TextDelta(index=self._grow(self._text, text, out), text=text))

    def feed(self, chunk: ChatChunk) -> list[StreamChunk]:
        """The harness chunks for one wire chunk (often one, sometimes none).

        Raises ``LlmError`` coded by the error's own fields (``error_from_payload``) when the
        chunk is an in-stream error object.
        """
        error = chunk.get("error")
        if error is not None:
            raise error_from_payload(error, where="mid-stream")
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
            delta = choice.get("message")
        if delta is None:
            return []
        return self._delta(delta)

    def _delta(self, delta: Delta) -> list[StreamChunk]:
        out: list[StreamChunk] = []
        field: ReasoningField = "reasoning_content"
        reasoning = delta.get("reasoning_content")
        if reasoning is None:
            field, reasoning = "reasoning", delta.get("reasoning")
        if reasoning:
            if self.reasoning_field is None:
                self.reasoning_field = field
            self._emit("reasoning", reasoning, out)
        content = delta.get("content")
        if content:
            for block_type, piece in self._splitter.feed(content):
                self._emit(block_type, piece, out)
        tool_calls = delta.get("tool_calls")
        if tool_calls:
            for fragment in tool_calls:
                self._tool_fragment(fragment, out)
        return out

    def _call_key(self, wire_index: int | None, call_id: str | None) -> int | None:
        """The known call a fragment continues, or ``None`` when it starts a new one."""
        if call_id is not None and call_id in self._by_id:
            return self._by_id[call_id]
        if wire_index is not None:
            key = self._by_index.get(wire_index)
            if key is not None and call_id is not None and self._calls[key].id is not None:
                return None  # a second call under an index that already has one
            return key
        last = self._last_call
        if last is None or (call_id is not None and self._calls[last].id is not None):
            return None
        return last

    def _tool_fragment(self, fragment: ToolCallFragment, out: list[StreamChunk]) -> None:
        wire_index = fragment.get("index")
        call_id = fragment.get("id") or None
        function = fragment.get("function") or {}
        name = function.get("name") or None
        arguments = function.get("arguments") or ""
        key = self._call_key(wire_index, call_id)
        if key is None:
            key = len(self._calls)
            self._calls[key] = _Call(self._open("tool-call", out))
        call = self._calls[key]
        self._last_call = key
        if wire_index is not None:
            self._by_index[wire_index] = key
        new_id = new_name = None
        if call_id is not None and call.id is None:
            call.id = new_id = call_id
            self._by_id[call_id] = key
        if name is not None and call.name is None:
            call.name = new_name = name
        call.parts.append(arguments)
        out.append(
            ToolCallDelta(
                index=call.index,
                id=None if new_id is None else CallId(new_id),
                name=new_name,
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
        """The closing chunks, emitted when ``[DONE]`` arrives: content still held back by the
        think-tag reader, block ends, usage, finish."""
        out: list[StreamChunk] = []
        for block_type, piece in self._splitter.close():
            self._emit(block_type, piece, out)
        out.extend(BlockEnd(index=i, block=b) for i, b in self._blocks())
        if self._usage is not None:
            out.append(UsageChunk(usage=usage_from_wire(self._usage)))
        reason = finish_from_wire(self._finish_reason, has_tool_calls=bool(self._calls))
        out.append(FinishChunk(reason=reason))
        return out
