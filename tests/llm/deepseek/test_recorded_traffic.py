"""The adapter against real provider traffic (issue 17).

Every body under ``tests/llm/fixtures/wire`` is replayed from the scripted HTTP server on
127.0.0.1, one HTTP chunk per SSE event, with its recorded status and content type. Each
test checks what the adapter reads — text, reasoning, tool calls, usage with cache hits,
finish reason, error class and whether it was retried — and, for answers that end normally,
the next request the adapter sends: tool-call ids, tool results, and reasoning in the field
and under the history rule the provider needs.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from dsh_lsp.llm import (
    BlockAssembler,
    CallId,
    LlmCode,
    LlmError,
    LlmRequest,
    Message,
    ReasoningBlock,
    RetryPolicy,
    TextBlock,
    TokenUsage,
    ToolCallBlock,
    ToolResultBlock,
)
from dsh_lsp.llm.deepseek import DeepSeekAdapter
from dsh_lsp.testing import ScriptedServer, completion
from tests.llm.deepseek.fakes import FakeClock, MakeAdapter
from tests.llm.wire_fixtures import Fixture, ids, load, response

ALL = ids()
READABLE = [i for i in ALL if "expected" in load(i).meta]
ANSWERS = [i for i in READABLE if load(i).expected.get("error") is None]
FAILURES = [i for i in READABLE if load(i).expected.get("error") is not None]
HTTP_CLASSES = {400: LlmCode.INVALID_REQUEST, 502: LlmCode.SERVER}


def ask(fixture: Fixture, *history: Message) -> LlmRequest:
    question = Message(role="user", content=(TextBlock(text="go"),))
    return LlmRequest(model=fixture.model, messages=(question, *history), temperature=0.5)


async def read(
    adapter: DeepSeekAdapter, request: LlmRequest
) -> tuple[BlockAssembler, LlmError | None]:
    assembler = BlockAssembler()
    try:
        async for chunk in adapter.stream(request):
            assembler.feed(chunk)
    except LlmError as error:
        return assembler, error
    return assembler, None


def joined(assembler: BlockAssembler, kind: type[TextBlock] | type[ReasoningBlock]) -> str:
    return "".join(b.text for b in assembler.content() if isinstance(b, kind))


def calls(assembler: BlockAssembler) -> list[ToolCallBlock]:
    return [b for b in assembler.content() if isinstance(b, ToolCallBlock)]


def test_every_fixture_is_loaded_and_sourced() -> None:
    assert len(ALL) >= 19
    for fixture_id in ALL:
        source = load(fixture_id).meta["source"]
        assert source.get("reconstructed") or source.get("repo"), fixture_id


@pytest.mark.parametrize("fixture_id", ANSWERS)
async def test_an_answer_reads_as_expected_and_the_next_request_follows_the_provider_rule(
    fixture_id: str, server: ScriptedServer, make_adapter: MakeAdapter
) -> None:
    fixture = load(fixture_id)
    expected = fixture.expected
    server.enqueue(response(fixture), completion(text="next"))
    adapter = make_adapter()
    assembler, error = await read(adapter, ask(fixture))
    assert error is None
    assert joined(assembler, TextBlock) == expected["text"]
    assert joined(assembler, ReasoningBlock) == expected["reasoning"]
    got = [(c.id, c.name, c.arguments, json.loads(c.arguments)) for c in calls(assembler)]
    want = [
        (c["id"], c["name"], c["arguments_raw"], c["arguments"]) for c in expected["tool_calls"]
    ]
    assert got == want
    usage = expected["usage"]
    assert assembler.usage == (None if usage is None else TokenUsage(**usage))
    assert assembler.finish.kind == expected["finish"]
    assert len(server.requests) == 1

    message = assembler.result().message
    results = tuple(
        ToolResultBlock(tool_call_id=c.id, content=(TextBlock(text="out"),))
        for c in calls(assembler)
    )
    history = [message, *([Message(role="user", content=results)] if results else [])]
    await read(adapter, ask(fixture, *history))
    sent: list[dict[str, Any]] = server.requests[1].json()["messages"]  # Any: wire JSON
    assistant = sent[1]
    assert assistant["role"] == "assistant"
    assert assistant["content"] == expected["text"]
    wire_calls = assistant.get("tool_calls", [])
    assert [c["id"] for c in wire_calls] == [c["id"] for c in expected["tool_calls"]]
    assert [m["tool_call_id"] for m in sent[2:]] == [c["id"] for c in expected["tool_calls"]]
    field = expected.get("reasoning_field", "reasoning_content")
    if fixture.meta["server"] in ("groq", "openrouter"):
        field = "reasoning"
    deepseek = "deepseek" in fixture.model.lower()
    reasoning_keys = {k for k in assistant if k.startswith("reasoning")}
    if wire_calls and (expected["reasoning"] or deepseek):
        assert reasoning_keys == {field}
        assert assistant[field] == expected["reasoning"]
    else:
        assert reasoning_keys == set(), "no tool call in the stretch: reasoning is not sent"
    body = server.requests[1].json()
    assert ("temperature" in body) is (not deepseek), "DeepSeek thinking ignores temperature"


@pytest.mark.parametrize("fixture_id", FAILURES)
async def test_an_error_keeps_its_class_and_only_a_transient_one_is_retried(
    fixture_id: str, server: ScriptedServer, make_adapter: MakeAdapter, clock: FakeClock
) -> None:
    fixture = load(fixture_id)
    expected = fixture.expected["error"]
    code = expected.get("llm_code") or HTTP_CLASSES[expected["code"]]
    retryable = expected.get("retryable", code == LlmCode.SERVER)
    server.enqueue(response(fixture), completion(text="recovered"))
    assembler, error = await read(make_adapter(retry=RetryPolicy(max_retries=3)), ask(fixture))
    if retryable:
        assert error is None
        assert joined(assembler, TextBlock) == "recovered"
        assert len(server.requests) == 2
        assert len(clock.sleeps) == 1
        return
    assert error is not None
    assert error.code == code
    assert len(server.requests) == 1, "a deterministic error is not retried"
    assert clock.sleeps == []
    assert error.provider_message is not None
    assert error.provider_message.startswith(expected["message"])
    for text in expected.get("contains", ()):
        assert text in error.provider_message
        assert text in str(error)
    if fixture.meta["status"] != 200:
        assert error.status == fixture.meta["status"]
    if "reasoning" in fixture.expected:
        assert joined(assembler, ReasoningBlock) == fixture.expected["reasoning"]


async def test_the_recorded_deepseek_400_is_an_invalid_request_and_not_retried(
    server: ScriptedServer, make_adapter: MakeAdapter
) -> None:
    fixture = load("deepseek-400-reasoning-passback")
    server.enqueue(response(fixture), completion(text="unreachable"))
    _, error = await read(make_adapter(), ask(fixture))
    assert error is not None
    assert (error.code, error.status) == (LlmCode.INVALID_REQUEST, 400)
    assert error.provider_message == (
        "The reasoning_content in the thinking mode must be passed back to the API."
    )
    assert len(server.requests) == 1


async def test_a_tool_call_id_learned_from_the_first_fragment_survives_empty_follow_ons(
    server: ScriptedServer, make_adapter: MakeAdapter
) -> None:
    fixture = load("dashscope-qwen-empty-id-toolcall")
    server.enqueue(response(fixture))
    assembler, _ = await read(make_adapter(), ask(fixture))
    assert [c.id for c in calls(assembler)] == [
        CallId("call_7b1c5e7a4f3a4b0c9d2e11"),
        CallId("call_0e9f2a3b4c5d6e7f8a9b22"),
    ]
    assert {c.name for c in calls(assembler)} == {"get_weather"}
