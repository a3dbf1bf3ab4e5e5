"""Hypothesis strategies for vocabulary values."""

from __future__ import annotations

from hypothesis import strategies as st

from dsh_lsp.llm import (
    BlockEnd,
    BlockStart,
    CallId,
    ContentBlock,
    FinishAborted,
    FinishChunk,
    FinishError,
    FinishMaxTokens,
    FinishReason,
    FinishStop,
    FinishToolCalls,
    Message,
    ReasoningBlock,
    ReasoningDelta,
    StreamChunk,
    TextBlock,
    TextDelta,
    TokenUsage,
    ToolCallBlock,
    ToolCallDelta,
    ToolResultBlock,
    UsageChunk,
)

indexes = st.integers(min_value=0, max_value=50)
call_ids = st.text(min_size=1, max_size=12).map(CallId)
counts = st.integers(min_value=0, max_value=10**7)

leaf_blocks: st.SearchStrategy[ContentBlock] = st.one_of(
    st.builds(TextBlock, text=st.text()),
    st.builds(ReasoningBlock, text=st.text()),
    st.builds(ToolCallBlock, id=call_ids, name=st.text(), arguments=st.text()),
)
blocks: st.SearchStrategy[ContentBlock] = st.one_of(
    leaf_blocks,
    st.builds(
        ToolResultBlock,
        tool_call_id=call_ids,
        content=st.lists(leaf_blocks, max_size=3).map(tuple),
        is_error=st.booleans(),
    ),
)
messages = st.builds(
    Message,
    role=st.sampled_from(["system", "user", "assistant"]),
    content=st.lists(blocks, max_size=4).map(tuple),
)
usages = st.builds(
    TokenUsage,
    input_tokens=counts,
    output_tokens=counts,
    cache_read_tokens=st.none() | counts,
    reasoning_tokens=st.none() | counts,
)
finishes: st.SearchStrategy[FinishReason] = st.one_of(
    st.just(FinishStop()),
    st.just(FinishToolCalls()),
    st.just(FinishMaxTokens()),
    st.just(FinishAborted()),
    st.builds(FinishError, message=st.text(), code=st.none() | st.text(min_size=1)),
)
chunks: st.SearchStrategy[StreamChunk] = st.one_of(
    st.builds(
        BlockStart, index=indexes, block_type=st.sampled_from(["text", "reasoning", "tool-call"])
    ),
    st.builds(TextDelta, index=indexes, text=st.text()),
    st.builds(ReasoningDelta, index=indexes, text=st.text()),
    st.builds(
        ToolCallDelta,
        index=indexes,
        id=st.none() | call_ids,
        name=st.none() | st.text(),
        arguments_delta=st.text(),
    ),
    st.builds(BlockEnd, index=indexes, block=blocks),
    st.builds(UsageChunk, usage=usages),
    st.builds(FinishChunk, reason=finishes),
)
