"""merge_deltas: one read's deltas joined per block, nothing else changed (llm.merge)."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp import llm
from dsh_lsp.llm import StreamChunk, merge_deltas

from .strategies import chunks

DELTAS = (llm.TextDelta, llm.ReasoningDelta, llm.ToolCallDelta)
small = st.lists(chunks.filter(lambda c: getattr(c, "index", 0) < 2), max_size=30)


def texts(stream: list[StreamChunk]) -> list[tuple[type, int, str]]:
    """Per run of one block's deltas: its kind, index and joined text (the merge-free view)."""
    out: list[tuple[type, int, str]] = []
    for chunk in stream:
        if isinstance(chunk, DELTAS):
            text = chunk.arguments_delta if isinstance(chunk, llm.ToolCallDelta) else chunk.text
            starts = isinstance(chunk, llm.ToolCallDelta) and (
                chunk.id is not None or chunk.name is not None
            )
            if out and out[-1][:2] == (type(chunk), chunk.index) and not starts:
                out[-1] = (*out[-1][:2], out[-1][2] + text)
                continue
            out.append((type(chunk), chunk.index, text))
        else:
            out.append((type(chunk), -1, repr(chunk)))
    return out


@given(small)
def test_merging_keeps_every_other_chunk_and_every_run_of_text(stream: list[StreamChunk]) -> None:
    merged = merge_deltas(stream)
    assert texts(merged) == texts(stream)
    assert [c for c in merged if not isinstance(c, DELTAS)] == [
        c for c in stream if not isinstance(c, DELTAS)
    ]
    assert merge_deltas(merged) == merged


@given(small)
def test_no_two_neighbours_are_left_that_one_delta_could_carry(stream: list[StreamChunk]) -> None:
    merged = merge_deltas(stream)
    for first, second in itertools.pairwise(merged):
        continues = (
            type(first) is type(second)
            and isinstance(second, DELTAS)
            and first.index == second.index  # type: ignore[union-attr]
            and not (
                isinstance(second, llm.ToolCallDelta)
                and (second.id is not None or second.name is not None)
            )
        )
        assert not continues, (first, second)


pieces = st.lists(st.text(max_size=8), min_size=1, max_size=12)


@given(reasoning=pieces, answer=pieces, arguments=pieces)
def test_a_stream_assembles_to_the_same_message_merged(
    reasoning: list[str], answer: list[str], arguments: list[str]
) -> None:
    call = llm.ToolCallBlock(id=llm.CallId("c1"), name="read", arguments="".join(arguments))
    stream: list[StreamChunk] = [
        llm.BlockStart(index=0, block_type="reasoning"),
        *(llm.ReasoningDelta(index=0, text=p) for p in reasoning),
        llm.BlockEnd(index=0, block=llm.ReasoningBlock(text="".join(reasoning))),
        *(llm.TextDelta(index=1, text=p) for p in answer),
        llm.BlockEnd(index=1, block=llm.TextBlock(text="".join(answer))),
        llm.ToolCallDelta(index=2, id=call.id, name=call.name, arguments_delta=arguments[0]),
        *(llm.ToolCallDelta(index=2, arguments_delta=p) for p in arguments[1:]),
        llm.BlockEnd(index=2, block=call),
        llm.UsageChunk(usage=llm.TokenUsage(input_tokens=1, output_tokens=1)),
    ]
    whole, merged = llm.BlockAssembler(), llm.BlockAssembler()
    for chunk in stream:
        whole.feed(chunk)
    for chunk in merge_deltas(stream):
        merged.feed(chunk)
    assert merged.content() == whole.content()
    assert len([c for c in merge_deltas(stream) if isinstance(c, DELTAS)]) == 3
