"""JSON records for stream chunks, usage and finish reasons (llm layer).

These are the shapes ``assistant/chunk`` session events persist and the replay adapter reads
back: tagged by ``type``, camelCase fields, absent optionals omitted. ``chunk_from_json`` of
``chunk_to_json(c)`` equals ``c`` for every chunk. Decoders raise ``LlmError``
(``MALFORMED_RECORD``) for anything else.
"""

from __future__ import annotations

from typing import assert_never

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
from .codec import block_from_json, block_to_json
from .finish import (
    FINISH_REASONS,
    ExtensionFinish,
    FinishAborted,
    FinishError,
    FinishMaxTokens,
    FinishReason,
    FinishStop,
    FinishToolCalls,
)
from .ids import CallId
from .json_fields import as_object, malformed, read_int, read_opt_int, read_opt_str, read_str, tag
from .json_value import JsonValue
from .usage import TokenUsage


def usage_to_json(usage: TokenUsage) -> dict[str, JsonValue]:
    """The JSON record of ``usage``."""
    record: dict[str, JsonValue] = {
        "inputTokens": usage.input_tokens,
        "outputTokens": usage.output_tokens,
    }
    if usage.cache_read_tokens is not None:
        record["cacheReadTokens"] = usage.cache_read_tokens
    if usage.reasoning_tokens is not None:
        record["reasoningTokens"] = usage.reasoning_tokens
    return record


def usage_from_json(value: object) -> TokenUsage:
    """Decode a usage record."""
    obj = as_object(value, "usage")
    return TokenUsage(
        input_tokens=read_int(obj, "inputTokens", "usage"),
        output_tokens=read_int(obj, "outputTokens", "usage"),
        cache_read_tokens=read_opt_int(obj, "cacheReadTokens", "usage"),
        reasoning_tokens=read_opt_int(obj, "reasoningTokens", "usage"),
    )


def finish_to_json(reason: FinishReason) -> dict[str, JsonValue]:
    """The JSON record of ``reason``."""
    match reason:
        case FinishStop() | FinishToolCalls() | FinishMaxTokens() | FinishAborted():
            return {"type": reason.kind}
        case FinishError(message=message, code=code):
            record: dict[str, JsonValue] = {"type": "error", "message": message}
            if code is not None:
                record["code"] = code
            return record
        case ExtensionFinish():
            return FINISH_REASONS.encode(reason)
        case _:
            assert_never(reason)


def finish_from_json(value: object) -> FinishReason:
    """Decode a finish-reason record."""
    obj, kind = FINISH_REASONS.read_kind(value)
    match kind:
        case "stop":
            return FinishStop()
        case "tool-calls":
            return FinishToolCalls()
        case "max-tokens":
            return FinishMaxTokens()
        case "aborted":
            return FinishAborted()
        case "error":
            return FinishError(
                message=read_str(obj, "message", "error finish"),
                code=read_opt_str(obj, "code", "error finish"),
            )
    return FINISH_REASONS.decode(kind, obj)


def chunk_to_json(chunk: StreamChunk) -> dict[str, JsonValue]:
    """The JSON record of ``chunk``."""
    match chunk:
        case BlockStart(index=index, block_type=block_type):
            return {"type": chunk.kind, "index": index, "blockType": block_type}
        case TextDelta(index=index, text=text) | ReasoningDelta(index=index, text=text):
            return {"type": chunk.kind, "index": index, "text": text}
        case ToolCallDelta(index=index, id=call_id, name=name, arguments_delta=delta):
            record: dict[str, JsonValue] = {"type": chunk.kind, "index": index}
            if call_id is not None:
                record["id"] = call_id
            if name is not None:
                record["name"] = name
            record["argumentsDelta"] = delta
            return record
        case BlockEnd(index=index, block=block):
            return {"type": chunk.kind, "index": index, "block": block_to_json(block)}
        case UsageChunk(usage=usage):
            return {"type": chunk.kind, "usage": usage_to_json(usage)}
        case FinishChunk(reason=reason):
            return {"type": chunk.kind, "reason": finish_to_json(reason)}
        case _:
            assert_never(chunk)


def chunk_from_json(value: object) -> StreamChunk:
    """Decode a chunk record; raises ``LlmError`` (``MALFORMED_RECORD``)."""
    if type(value) is dict:  # fast path for the deltas that make up most of a stored log
        kind, index, text = value.get("type"), value.get("index"), value.get("text")
        if type(index) is int and type(text) is str:
            if kind == "text-delta":
                return TextDelta(index=index, text=text)
            if kind == "reasoning-delta":
                return ReasoningDelta(index=index, text=text)
    obj = as_object(value, "chunk")
    kind = tag(obj, "chunk")
    what = f"{kind} chunk"
    match kind:
        case "block-start":
            return BlockStart(
                index=read_int(obj, "index", what), block_type=read_str(obj, "blockType", what)
            )
        case "text-delta":
            return TextDelta(index=read_int(obj, "index", what), text=read_str(obj, "text", what))
        case "reasoning-delta":
            return ReasoningDelta(
                index=read_int(obj, "index", what), text=read_str(obj, "text", what)
            )
        case "tool-call-delta":
            call_id = read_opt_str(obj, "id", what)
            return ToolCallDelta(
                index=read_int(obj, "index", what),
                id=None if call_id is None else CallId(call_id),
                name=read_opt_str(obj, "name", what),
                arguments_delta=read_str(obj, "argumentsDelta", what),
            )
        case "block-end":
            return BlockEnd(
                index=read_int(obj, "index", what), block=block_from_json(obj.get("block"))
            )
        case "usage":
            return UsageChunk(usage=usage_from_json(obj.get("usage")))
        case "finish":
            return FinishChunk(reason=finish_from_json(obj.get("reason")))
    malformed("chunk", f"unknown chunk type {kind!r}")
