"""BlockAssembler tolerance rules."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import ClassVar

import pytest

from dsh_lsp.llm import (
    BlockAssembler,
    BlockEnd,
    BlockStart,
    CallId,
    ExtensionBlock,
    FinishChunk,
    FinishError,
    FinishStop,
    LlmCode,
    LlmError,
    Message,
    ReasoningBlock,
    ReasoningDelta,
    StreamChunk,
    TextBlock,
    TextDelta,
    TokenUsage,
    ToolCallBlock,
    ToolCallDelta,
    UsageChunk,
    assemble,
)
from tests.plugin_kinds import StringFields


def fold(*chunks: StreamChunk) -> BlockAssembler:
    assembler = BlockAssembler()
    for chunk in chunks:
        assembler.feed(chunk)
    return assembler


def test_delta_only_stream_builds_blocks() -> None:
    result = fold(
        ReasoningDelta(index=0, text="think"),
        TextDelta(index=1, text="Hel"),
        TextDelta(index=1, text="lo"),
    ).result()
    assert result.message == Message(
        role="assistant", content=(ReasoningBlock(text="think"), TextBlock(text="Hello"))
    )


def test_blocks_keep_first_seen_order_not_index_order() -> None:
    content = fold(
        TextDelta(index=5, text="a"), TextDelta(index=2, text="b"), TextDelta(index=5, text="c")
    ).content()
    assert content == (TextBlock(text="ac"), TextBlock(text="b"))


def test_block_end_is_authoritative_and_freezes_the_block() -> None:
    assembler = fold(
        BlockStart(index=0, block_type="text"),
        TextDelta(index=0, text="draft"),
        BlockEnd(index=0, block=TextBlock(text="final")),
        TextDelta(index=0, text=" ignored"),
    )
    assert assembler.content() == (TextBlock(text="final"),)


def test_block_end_without_prior_deltas_adds_the_block() -> None:
    block = ToolCallBlock(id=CallId("x"), name="f", arguments="{}")
    assert fold(BlockEnd(index=3, block=block)).content() == (block,)


def test_tool_call_keeps_last_id_and_name_and_concatenates_arguments() -> None:
    assembler = fold(
        ToolCallDelta(index=0, id=CallId("first"), name="old", arguments_delta='{"a"'),
        ToolCallDelta(index=0, arguments_delta=":1"),
        ToolCallDelta(index=0, id=CallId("second"), name="new", arguments_delta="}"),
    )
    assert assembler.content() == (
        ToolCallBlock(id=CallId("second"), name="new", arguments='{"a":1}'),
    )


def test_missing_call_id_becomes_call_index() -> None:
    assembler = fold(ToolCallDelta(index=4, name="f", arguments_delta="{}"))
    assert assembler.content() == (ToolCallBlock(id=CallId("call-4"), name="f", arguments="{}"),)


def test_mismatched_delta_kind_is_ignored() -> None:
    assembler = fold(
        BlockStart(index=0, block_type="reasoning"),
        TextDelta(index=0, text="wrong kind"),
        ReasoningDelta(index=0, text="right"),
    )
    assert assembler.content() == (ReasoningBlock(text="right"),)


def test_last_usage_wins() -> None:
    assembler = fold(
        UsageChunk(usage=TokenUsage(input_tokens=1, output_tokens=1)),
        UsageChunk(usage=TokenUsage(input_tokens=2, output_tokens=3)),
    )
    assert assembler.usage == TokenUsage(input_tokens=2, output_tokens=3)


def test_finish_defaults_to_stop() -> None:
    assembler = fold(TextDelta(index=0, text="x"))
    assert assembler.finish == FinishStop()
    assert assembler.usage is None


def test_chunks_after_finish_are_ignored() -> None:
    reason = FinishError(message="boom", code="X")
    assembler = fold(
        TextDelta(index=0, text="a"),
        FinishChunk(reason=reason),
        TextDelta(index=0, text="b"),
        FinishChunk(reason=FinishStop()),
    )
    assert assembler.content() == (TextBlock(text="a"),)
    assert assembler.finish == reason


@dataclass(frozen=True, slots=True, kw_only=True)
class NoteBlock(StringFields, ExtensionBlock):
    kind: ClassVar[str] = "test-note"
    note: str


def test_plugin_block_appears_only_with_its_block_end() -> None:
    assembler = fold(BlockStart(index=0, block_type="test-note"), TextDelta(index=1, text="t"))
    assert assembler.content() == (TextBlock(text="t"),)
    assembler.feed(BlockEnd(index=0, block=NoteBlock(note="n")))
    assert assembler.content() == (NoteBlock(note="n"), TextBlock(text="t"))


async def test_assemble_consumes_a_stream() -> None:
    async def stream() -> AsyncIterator[StreamChunk]:
        yield TextDelta(index=0, text="ok")
        yield FinishChunk(reason=FinishStop())

    result = await assemble(stream())
    assert result.message.content == (TextBlock(text="ok"),)


async def test_assemble_propagates_stream_errors() -> None:
    async def stream() -> AsyncIterator[StreamChunk]:
        yield TextDelta(index=0, text="ok")
        raise LlmError("broken", code=LlmCode.TRANSPORT)

    with pytest.raises(LlmError, match="broken"):
        await assemble(stream())
