"""``redact_chunks``: a secret split across deltas never comes out whole (issue 16)."""

from __future__ import annotations

import itertools
from collections.abc import AsyncGenerator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.kernel import Redactor
from dsh_lsp.llm import (
    BlockEnd,
    CallId,
    StreamChunk,
    TextBlock,
    TextDelta,
    ToolCallBlock,
    ToolCallDelta,
)
from dsh_lsp.llm.secret_stream import redact_chunks

KEY = "sk-test-canary-7f3a9c"


async def _source(chunks: list[StreamChunk]) -> AsyncGenerator[StreamChunk, None]:
    for chunk in chunks:
        yield chunk


async def _collect(chunks: list[StreamChunk], redactor: Redactor) -> list[StreamChunk]:
    return [chunk async for chunk in redact_chunks(_source(chunks), redactor)]


def _cut(text: str, cuts: list[int]) -> list[str]:
    points = sorted({0, len(text), *cuts})
    return [text[a:b] for a, b in itertools.pairwise(points)]


@given(st.lists(st.integers(0, 60), max_size=10))
@pytest.mark.asyncio
async def test_a_key_split_anywhere_is_masked_in_deltas_and_blocks(cuts: list[int]) -> None:
    redactor = Redactor()
    redactor.add(KEY)
    text = f"the key is {KEY}, and Bearer {KEY}!"
    pieces = _cut(text, cuts)
    chunks: list[StreamChunk] = [TextDelta(index=0, text=p) for p in pieces]
    chunks.append(BlockEnd(index=0, block=TextBlock(text=text)))
    args = f'{{"path": "{KEY}"}}'
    chunks.append(ToolCallDelta(index=1, id=CallId("c"), name="read"))
    chunks.extend(ToolCallDelta(index=1, arguments_delta=p) for p in _cut(args, cuts))
    chunks.append(
        BlockEnd(index=1, block=ToolCallBlock(id=CallId("c"), name="read", arguments=args))
    )
    out = await _collect(chunks, redactor)
    streamed = "".join(c.text for c in out if isinstance(c, TextDelta))
    assert streamed == "the key is ***, and Bearer ***!"
    arguments = "".join(c.arguments_delta for c in out if isinstance(c, ToolCallDelta))
    assert arguments == '{"path": "***"}'
    ends = [c.block for c in out if isinstance(c, BlockEnd)]
    assert ends[0] == TextBlock(text="the key is ***, and Bearer ***!")
    assert isinstance(ends[1], ToolCallBlock)
    assert KEY not in ends[1].arguments
