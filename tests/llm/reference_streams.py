"""The two reference DeepSeek streams (thinking + tool call; thinking + text) and their chunks."""

from __future__ import annotations

import json

from dsh_lsp.llm import (
    BlockEnd,
    BlockStart,
    CallId,
    FinishChunk,
    FinishStop,
    FinishToolCalls,
    ReasoningBlock,
    ReasoningDelta,
    StreamChunk,
    TextBlock,
    TextDelta,
    TokenUsage,
    ToolCallBlock,
    ToolCallDelta,
    UsageChunk,
)

CALL_ID = "call_00_MkPefqOY8sRQIkux83391414"
ARG_FRAGMENTS = ["{", '"', "file", "_path", '"', ": ", '"', "config", ".txt", '"', "}"]


def _tool_fragment(arguments: str) -> str:
    delta = {"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]}
    return json.dumps({"choices": [{"delta": delta}]})


TOOL_CALL_PAYLOADS: list[str] = [
    '{"choices":[{"delta":{"role":"assistant","content":null,"reasoning_content":""}}]}',
    '{"choices":[{"delta":{"content":null,"reasoning_content":"Let"}}]}',
    '{"choices":[{"delta":{"content":null,"reasoning_content":'
    '" me start by reading the config.txt file."}}]}',
    '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"' + CALL_ID + '","type":"function",'
    '"function":{"name":"read","arguments":""}}]}}]}',
    *(_tool_fragment(fragment) for fragment in ARG_FRAGMENTS),
    '{"choices":[{"delta":{"content":""},"finish_reason":"tool_calls"}],"usage":'
    '{"prompt_tokens":2299,"completion_tokens":55,"prompt_cache_hit_tokens":2176,'
    '"prompt_cache_miss_tokens":123,"prompt_tokens_details":{"cached_tokens":2176},'
    '"completion_tokens_details":{"reasoning_tokens":10}}}',
    "[DONE]",
]

TEXT_PAYLOADS: list[str] = [
    '{"choices":[{"delta":{"role":"assistant","content":null,"reasoning_content":""}}]}',
    '{"choices":[{"delta":{"content":null,"reasoning_content":"The file has been updated."}}]}',
    '{"choices":[{"delta":{"content":"DONE","reasoning_content":null}}]}',
    '{"choices":[{"delta":{},"finish_reason":"stop"}],"usage":null}',
    '{"choices":[],"usage":{"prompt_tokens":2548,"completion_tokens":23,'
    '"prompt_cache_hit_tokens":2304,"prompt_cache_miss_tokens":244,'
    '"completion_tokens_details":{"reasoning_tokens":20}}}',
    "[DONE]",
]


def sse_bytes(payloads: list[str]) -> bytes:
    """The payloads framed as an SSE body."""
    return "".join(f"data: {payload}\n\n" for payload in payloads).encode()


TOOL_CALL_ARGUMENTS = '{"file_path": "config.txt"}'

TOOL_CALL_CHUNKS: list[StreamChunk] = [
    BlockStart(index=0, block_type="reasoning"),
    ReasoningDelta(index=0, text="Let"),
    ReasoningDelta(index=0, text=" me start by reading the config.txt file."),
    BlockStart(index=1, block_type="tool-call"),
    ToolCallDelta(index=1, id=CallId(CALL_ID), name="read", arguments_delta=""),
    *(ToolCallDelta(index=1, arguments_delta=fragment) for fragment in ARG_FRAGMENTS),
    BlockEnd(index=0, block=ReasoningBlock(text="Let me start by reading the config.txt file.")),
    BlockEnd(
        index=1,
        block=ToolCallBlock(id=CallId(CALL_ID), name="read", arguments=TOOL_CALL_ARGUMENTS),
    ),
    UsageChunk(
        usage=TokenUsage(
            input_tokens=123, output_tokens=55, cache_read_tokens=2176, reasoning_tokens=10
        )
    ),
    FinishChunk(reason=FinishToolCalls()),
]

TEXT_CHUNKS: list[StreamChunk] = [
    BlockStart(index=0, block_type="reasoning"),
    ReasoningDelta(index=0, text="The file has been updated."),
    BlockStart(index=1, block_type="text"),
    TextDelta(index=1, text="DONE"),
    BlockEnd(index=0, block=ReasoningBlock(text="The file has been updated.")),
    BlockEnd(index=1, block=TextBlock(text="DONE")),
    UsageChunk(
        usage=TokenUsage(
            input_tokens=244, output_tokens=23, cache_read_tokens=2304, reasoning_tokens=20
        )
    ),
    FinishChunk(reason=FinishStop()),
]
