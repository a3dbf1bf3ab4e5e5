"""JSON records: chunks, blocks and messages round-trip; malformed records are rejected."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar, Self

import pytest
from hypothesis import given, settings

from dsh_lsp.llm import (
    BlockEnd,
    CallId,
    ContentBlock,
    ExtensionBlock,
    ExtensionFinish,
    ExtensionSource,
    FinishChunk,
    FinishError,
    JsonObject,
    JsonValue,
    LlmCode,
    LlmError,
    Message,
    MessageSource,
    OpaqueBlock,
    PluginSource,
    StreamChunk,
    TextBlock,
    ToolCallDelta,
    ToolResultBlock,
    UserSource,
    block_from_json,
    block_to_json,
    block_type,
    chunk_from_json,
    chunk_to_json,
    dumps_compact,
    finish_from_json,
    finish_to_json,
    loads_strict,
    message_from_json,
    message_to_json,
    register_block_type,
    source_from_json,
    source_to_json,
)
from tests.plugin_kinds import StringFields

from .strategies import blocks, chunks, messages


@settings(deadline=None)  # CI machines are shared: no per-example deadline
@given(chunk=chunks)
def test_chunks_round_trip_through_json_text(chunk: StreamChunk) -> None:
    assert chunk_from_json(loads_strict(dumps_compact(chunk_to_json(chunk)))) == chunk


@settings(deadline=None)  # CI machines are shared: no per-example deadline
@given(block=blocks)
def test_blocks_round_trip(block: ContentBlock) -> None:
    assert block_from_json(json.loads(json.dumps(block_to_json(block)))) == block


@settings(deadline=None)  # CI machines are shared: no per-example deadline
@given(message=messages)
def test_messages_round_trip(message: Message) -> None:
    assert message_from_json(json.loads(json.dumps(message_to_json(message)))) == message


@pytest.mark.parametrize("source", [UserSource(), PluginSource(plugin="hooks")])
def test_sources_round_trip(source: MessageSource) -> None:
    assert source_from_json(source_to_json(source)) == source


def test_record_shapes_are_tagged_camel_case_and_omit_absent_fields() -> None:
    assert chunk_to_json(ToolCallDelta(index=1, arguments_delta="{")) == {
        "type": "tool-call-delta",
        "index": 1,
        "argumentsDelta": "{",
    }
    result = ToolResultBlock(tool_call_id=CallId("c"), content=(TextBlock(text="x"),))
    assert block_to_json(result) == {
        "type": "tool-result",
        "toolCallId": "c",
        "content": [{"type": "text", "text": "x"}],
    }
    assert chunk_to_json(FinishChunk(reason=FinishError(message="m"))) == {
        "type": "finish",
        "reason": {"type": "error", "message": "m"},
    }


@pytest.mark.parametrize(
    "record",
    [
        None,
        [],
        {"type": "nope"},
        {"index": 0, "text": "x"},
        {"type": "text-delta", "index": "0", "text": "x"},
        {"type": "text-delta", "index": True, "text": "x"},
        {"type": "text-delta", "index": 0},
        {"type": "block-end", "index": 0, "block": {"type": 7}},
        {"type": "usage", "usage": {"inputTokens": 1}},
        {"type": "finish", "reason": {"message": "no tag"}},
        {"type": "tool-call-delta", "index": 0, "id": 5, "argumentsDelta": ""},
    ],
)
def test_malformed_chunk_records_raise_coded_errors(record: object) -> None:
    with pytest.raises(LlmError) as caught:
        chunk_from_json(record)
    assert caught.value.code == LlmCode.MALFORMED_RECORD


def test_malformed_message_role_is_rejected() -> None:
    with pytest.raises(LlmError, match="unknown role"):
        message_from_json({"role": "tool", "content": []})


def test_loads_strict_rejects_nan_and_dumps_rejects_it_too() -> None:
    with pytest.raises(ValueError, match="NaN"):
        loads_strict('{"a": NaN}')
    with pytest.raises(ValueError, match="JSON compliant"):
        dumps_compact({"a": float("inf")})
    assert dumps_compact({"a": [1, "é"]}) == '{"a":[1,"é"]}'


@dataclass(frozen=True, slots=True, kw_only=True)
class TodoBlock(ExtensionBlock):
    kind: ClassVar[str] = "test-todo"
    items: tuple[str, ...]

    def to_json(self) -> dict[str, JsonValue]:
        return {"items": list(self.items)}

    @classmethod
    def from_json(cls, data: JsonObject) -> Self:
        items = data["items"]
        if not isinstance(items, list):
            raise ValueError("items must be a list")
        return cls(items=tuple(str(item) for item in items))


@pytest.fixture
def todo_registered() -> Iterator[None]:
    unregister = register_block_type(TodoBlock)
    yield
    unregister()


@pytest.mark.usefixtures("todo_registered")
def test_registered_extension_block_round_trips_inside_chunks_and_results() -> None:
    todo = TodoBlock(items=("a", "b"))
    chunk = BlockEnd(index=0, block=todo)
    assert chunk_to_json(chunk)["block"] == {"type": "test-todo", "items": ["a", "b"]}
    assert chunk_from_json(chunk_to_json(chunk)) == chunk
    nested = ToolResultBlock(tool_call_id=CallId("c"), content=(todo,))
    assert block_from_json(block_to_json(nested)) == nested


@pytest.mark.usefixtures("todo_registered")
def test_extension_decode_errors_become_malformed_records() -> None:
    with pytest.raises(LlmError) as caught:
        block_from_json({"type": "test-todo", "items": "nope"})
    assert caught.value.code == LlmCode.MALFORMED_RECORD


def test_an_unregistered_kind_stays_opaque_and_registration_is_counted() -> None:
    first = register_block_type(TodoBlock)
    second = register_block_type(TodoBlock)
    first()
    first()  # single-shot: a second call changes nothing
    assert block_type("test-todo") is TodoBlock
    second()
    assert block_type("test-todo") is None
    record: dict[str, JsonValue] = {"items": [], "type": "test-todo"}
    opaque = block_from_json(record)
    assert opaque == OpaqueBlock(kind="test-todo", record=record)
    assert dumps_compact(block_to_json(opaque)) == dumps_compact(record)  # same bytes back


def test_unknown_finish_reasons_and_sources_stay_opaque_and_round_trip() -> None:
    finish: dict[str, JsonValue] = {"type": "later", "detail": 1}
    reason = finish_from_json(finish)
    assert isinstance(reason, ExtensionFinish)
    assert reason.kind == "later"
    assert dumps_compact(finish_to_json(reason)) == dumps_compact(finish)
    source: dict[str, JsonValue] = {"kind": "robot", "name": "r2"}
    decoded = source_from_json(source)
    assert isinstance(decoded, ExtensionSource)
    assert decoded.kind == "robot"
    assert dumps_compact(source_to_json(decoded)) == dumps_compact(source)


@pytest.mark.usefixtures("todo_registered")
def test_a_different_class_cannot_claim_a_registered_kind() -> None:
    @dataclass(frozen=True, slots=True, kw_only=True)
    class Impostor(TodoBlock):
        pass

    with pytest.raises(LlmError) as caught:
        register_block_type(Impostor)
    assert caught.value.code == LlmCode.DUPLICATE_BLOCK_TYPE


def test_core_kinds_cannot_be_claimed() -> None:
    @dataclass(frozen=True, slots=True, kw_only=True)
    class FakeText(StringFields, ExtensionBlock):
        kind: ClassVar[str] = "text"

    with pytest.raises(LlmError, match="core vocabulary"):
        register_block_type(FakeText)
