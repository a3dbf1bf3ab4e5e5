"""Wire chunk → harness chunk translation, table-driven over the reference streams."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh_lsp.llm import (
    BlockAssembler,
    BlockEnd,
    BlockStart,
    CallId,
    FinishChunk,
    FinishError,
    FinishMaxTokens,
    FinishReason,
    FinishStop,
    FinishToolCalls,
    LlmCode,
    LlmError,
    SseDecoder,
    StreamChunk,
    TextBlock,
    TextDelta,
    TokenUsage,
    ToolCallBlock,
    ToolCallDelta,
    UsageChunk,
)
from dsh_lsp.llm.deepseek import StreamTranslator, parse_chat_chunk, usage_from_wire
from tests.llm.reference_streams import (
    CALL_ID,
    TEXT_CHUNKS,
    TEXT_PAYLOADS,
    TOOL_CALL_ARGUMENTS,
    TOOL_CALL_CHUNKS,
    TOOL_CALL_PAYLOADS,
    sse_bytes,
)


def translate(payloads: list[str]) -> list[StreamChunk]:
    translator = StreamTranslator()
    out: list[StreamChunk] = []
    for payload in payloads:
        if payload == "[DONE]":
            return out + translator.finish()
        out.extend(translator.feed(parse_chat_chunk(payload)))
    return out


def chunk(delta: Mapping[str, object], **extra: object) -> str:
    return json.dumps({"choices": [{"delta": delta, **extra}]})


@pytest.mark.parametrize(
    ("payloads", "expected"),
    [(TOOL_CALL_PAYLOADS, TOOL_CALL_CHUNKS), (TEXT_PAYLOADS, TEXT_CHUNKS)],
    ids=["thinking-tool-call", "thinking-text-trailing-usage"],
)
def test_reference_streams(payloads: list[str], expected: list[StreamChunk]) -> None:
    assert translate(payloads) == expected


def test_reference_tool_call_assembles_to_the_full_arguments() -> None:
    assembler = BlockAssembler()
    for item in translate(TOOL_CALL_PAYLOADS):
        assembler.feed(item)
    result = assembler.result()
    assert result.message.content[1] == ToolCallBlock(
        id=CallId(CALL_ID), name="read", arguments=TOOL_CALL_ARGUMENTS
    )
    assert result.finish == FinishToolCalls()


@settings(deadline=None)  # CI machines are shared: no per-example deadline
@given(cuts=st.lists(st.integers(min_value=0), max_size=30), crlf=st.booleans())
def test_byte_splits_do_not_change_the_translation(cuts: list[int], crlf: bool) -> None:
    body = sse_bytes(TOOL_CALL_PAYLOADS)
    if crlf:
        body = body.replace(b"\n", b"\r\n")
    points = sorted({c % (len(body) + 1) for c in cuts})
    bounds = [0, *points, len(body)]
    decoder = SseDecoder()
    payloads: list[str] = []
    for a, b in itertools.pairwise(bounds):
        payloads.extend(decoder.feed(body[a:b]))
    payloads.extend(decoder.close())
    assert translate(payloads) == TOOL_CALL_CHUNKS


def test_empty_first_reasoning_opens_no_block() -> None:
    payloads = [chunk({"role": "assistant", "content": None, "reasoning_content": ""})]
    assert translate(payloads) == []
    assert translate([*payloads, "[DONE]"]) == [FinishChunk(reason=FinishStop())]


def test_finish_and_usage_wait_for_done() -> None:
    usage = {"prompt_tokens": 5, "completion_tokens": 1}
    payloads = [chunk({"content": "hi"}, finish_reason="stop"), json.dumps({"usage": usage})]
    assert translate(payloads) == [
        BlockStart(index=0, block_type="text"),
        TextDelta(index=0, text="hi"),
    ]


def test_parallel_calls_in_one_delta_get_their_own_blocks() -> None:
    both = {
        "tool_calls": [
            {"index": 0, "id": "a", "function": {"name": "read", "arguments": '{"p":'}},
            {"index": 1, "id": "b", "function": {"name": "ls", "arguments": "{"}},
        ]
    }
    rest = {
        "tool_calls": [
            {"index": 1, "function": {"arguments": "}"}},
            {"index": 0, "function": {"arguments": "1}"}},
        ]
    }
    out = translate([chunk(both), chunk(rest), "[DONE]"])
    ends = [c for c in out if isinstance(c, BlockEnd)]
    assert ends == [
        BlockEnd(index=0, block=ToolCallBlock(id=CallId("a"), name="read", arguments='{"p":1}')),
        BlockEnd(index=1, block=ToolCallBlock(id=CallId("b"), name="ls", arguments="{}")),
    ]
    assert out[-1] == FinishChunk(reason=FinishToolCalls())


def test_calls_without_an_id_get_ids_unique_across_streams() -> None:
    nameless = {
        "tool_calls": [
            {"index": 0, "function": {"name": "read", "arguments": "{}"}},
            {"index": 1, "function": {"name": "ls", "arguments": "{}"}},
        ]
    }
    ids: list[str] = []
    for _ in range(2):  # two model calls, e.g. two steps of one turn
        ends = [c for c in translate([chunk(nameless), "[DONE]"]) if isinstance(c, BlockEnd)]
        for end in ends:
            assert isinstance(end.block, ToolCallBlock)
            assert re.fullmatch(r"call_[0-9a-f]{32}", end.block.id)
            ids.append(end.block.id)
    assert len(set(ids)) == 4


def test_a_generated_id_is_stable_within_its_stream() -> None:
    translator = StreamTranslator()
    nameless = {"tool_calls": [{"index": 0, "function": {"name": "read", "arguments": "{}"}}]}
    translator.feed(parse_chat_chunk(chunk(nameless)))
    first, second = translator.finish(), translator.finish()
    assert first == second


def test_wire_indexes_map_to_first_seen_harness_indexes() -> None:
    first = {"tool_calls": [{"index": 3, "id": "x", "function": {"name": "f", "arguments": ""}}]}
    out = translate([chunk({"content": "t"}), chunk(first)])
    assert out[2:] == [
        BlockStart(index=1, block_type="tool-call"),
        ToolCallDelta(index=1, id=CallId("x"), name="f", arguments_delta=""),
    ]


def test_fragments_without_index_continue_the_call_until_a_new_id() -> None:
    def fragment(call_id: str | None, name: str | None, arguments: str) -> str:
        entry: dict[str, object] = {"function": {"name": name, "arguments": arguments}}
        if call_id is not None:
            entry["id"] = call_id
        return chunk({"tool_calls": [entry]})

    payloads = [
        fragment("a", "f", "{"),
        fragment(None, None, "}"),
        fragment("b", "g", "[]"),
        "[DONE]",
    ]
    ends = [c for c in translate(payloads) if isinstance(c, BlockEnd)]
    assert [e.block for e in ends] == [
        ToolCallBlock(id=CallId("a"), name="f", arguments="{}"),
        ToolCallBlock(id=CallId("b"), name="g", arguments="[]"),
    ]


@pytest.mark.parametrize(
    ("wire", "has_calls", "expected"),
    [
        (None, False, FinishStop()),
        ("stop", False, FinishStop()),
        ("stop", True, FinishToolCalls()),
        (None, True, FinishToolCalls()),
        ("tool_calls", True, FinishToolCalls()),
        ("length", True, FinishMaxTokens()),
        ("length", False, FinishMaxTokens()),
        (
            "content_filter",
            False,
            FinishError(message="the model stopped: content_filter", code="CONTENT_FILTER"),
        ),
        (
            "insufficient_system_resource",
            False,
            FinishError(
                message="the model stopped: insufficient_system_resource",
                code="INSUFFICIENT_SYSTEM_RESOURCE",
            ),
        ),
    ],
)
def test_finish_reason_mapping(wire: str | None, has_calls: bool, expected: FinishReason) -> None:
    payloads: list[str] = []
    if has_calls:
        call = {"index": 0, "id": "c", "function": {"name": "f", "arguments": "{}"}}
        payloads.append(chunk({"tool_calls": [call]}))
    payloads.append(chunk({}, finish_reason=wire))
    assert translate([*payloads, "[DONE]"])[-1] == FinishChunk(reason=expected)


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        (
            {
                "prompt_tokens": 100,
                "completion_tokens": 7,
                "prompt_tokens_details": {"cached_tokens": 60},
                "prompt_cache_hit_tokens": 50,
            },
            TokenUsage(input_tokens=40, output_tokens=7, cache_read_tokens=60),
        ),
        (
            {"prompt_tokens": 100, "completion_tokens": 7, "prompt_cache_hit_tokens": 50},
            TokenUsage(input_tokens=50, output_tokens=7, cache_read_tokens=50),
        ),
        (
            {
                "prompt_tokens": 100,
                "completion_tokens": 7,
                "completion_tokens_details": {"reasoning_tokens": 3},
            },
            TokenUsage(input_tokens=100, output_tokens=7, reasoning_tokens=3),
        ),
    ],
    ids=["cached-tokens-preferred", "cache-hit-fallback", "no-cache-report"],
)
def test_usage_mapping_subtracts_cache_hits(usage: dict[str, object], expected: TokenUsage) -> None:
    wire = parse_chat_chunk(json.dumps({"usage": usage})).get("usage")
    assert wire is not None
    assert usage_from_wire(wire) == expected


def test_last_usage_wins_and_absent_usage_emits_nothing() -> None:
    first = json.dumps({"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1}})
    last = json.dumps({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2}})
    out = translate([first, last, "[DONE]"])
    assert out == [
        UsageChunk(usage=TokenUsage(input_tokens=9, output_tokens=2)),
        FinishChunk(reason=FinishStop()),
    ]
    assert translate(["[DONE]"]) == [FinishChunk(reason=FinishStop())]


def test_in_stream_error_object_raises_server_error() -> None:
    payload = json.dumps({"error": {"message": "overloaded", "type": "server_error"}})
    with pytest.raises(LlmError) as caught:
        translate([payload])
    assert caught.value.code == LlmCode.SERVER
    assert caught.value.provider_message == "overloaded"


def test_text_and_reasoning_each_keep_one_block() -> None:
    payloads = [
        chunk({"reasoning_content": "a"}),
        chunk({"content": "b"}),
        chunk({"reasoning_content": "c"}),
        chunk({"content": "d"}),
        "[DONE]",
    ]
    ends = [c for c in translate(payloads) if isinstance(c, BlockEnd)]
    assert [e.index for e in ends] == [0, 1]
    assert ends[1].block == TextBlock(text="bd")
