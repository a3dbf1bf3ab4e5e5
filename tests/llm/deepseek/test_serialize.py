"""LlmRequest → wire body: the serialization fixes a naive port gets wrong."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from dsh_lsp.llm import (
    CallId,
    ContentBlock,
    ExtensionBlock,
    LlmCode,
    LlmError,
    LlmRequest,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolSchema,
    dumps_compact,
)
from dsh_lsp.llm.deepseek import serialize_request, wire_rules
from tests.plugin_kinds import StringFields


def body(request: LlmRequest, **options: Any) -> Any:  # Any: decoded JSON under test
    raw = serialize_request(request, **options)
    decoded = json.loads(raw)
    assert raw == dumps_compact(decoded).encode(), "body must be compact JSON"
    return decoded


def user(*content: ContentBlock) -> Message:
    return Message(role="user", content=content)


def assistant(*content: ContentBlock) -> Message:
    return Message(role="assistant", content=content)


CALL = ToolCallBlock(id=CallId("call_1"), name="read", arguments='{"p":1}')


def test_minimal_body() -> None:
    assert body(LlmRequest(model="m", messages=(user(TextBlock(text="hi")),))) == {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def test_optional_knobs_reach_the_wire_and_are_omitted_when_unset() -> None:
    tool = ToolSchema(name="read", description="Read a file", parameters={"type": "object"})
    request = LlmRequest(
        model="m",
        messages=(),
        system="be brief",
        tools=(tool,),
        temperature=0.2,
        max_tokens=64,
        stop=("END",),
    )
    wire = body(request, thinking="enabled", reasoning_effort="max")
    assert wire["messages"] == [{"role": "system", "content": "be brief"}]
    assert wire["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read",
                "description": "Read a file",
                "parameters": {"type": "object"},
            },
        }
    ]
    assert (wire["temperature"], wire["max_tokens"], wire["stop"]) == (0.2, 64, ["END"])
    assert (wire["thinking"], wire["reasoning_effort"]) == ({"type": "enabled"}, "max")
    bare = body(LlmRequest(model="m", messages=()))
    for key in ("tools", "temperature", "max_tokens", "stop", "thinking", "reasoning_effort"):
        assert key not in bare


@pytest.mark.parametrize(
    "content",
    [(ReasoningBlock(text="only thinking"),), ()],
    ids=["reasoning-only", "empty"],
)
def test_assistant_content_is_empty_string_never_null(content: tuple[ContentBlock, ...]) -> None:
    wire = body(LlmRequest(model="m", messages=(assistant(*content),)))
    assert wire["messages"] == [{"role": "assistant", "content": ""}]


def test_reasoning_goes_back_on_every_assistant_message_of_a_tool_using_stretch() -> None:
    request = LlmRequest(
        model="m",
        messages=(
            user(TextBlock(text="q1")),
            assistant(ReasoningBlock(text="plan"), TextBlock(text="Reading."), CALL),
            user(ToolResultBlock(tool_call_id=CALL.id, content=(TextBlock(text="data"),))),
            assistant(ReasoningBlock(text="done thinking"), TextBlock(text="Answer")),
            user(TextBlock(text="q2")),
            assistant(ReasoningBlock(text="chat only"), TextBlock(text="Sure")),
        ),
    )
    _, first, tool, answer, _, chat = body(request)["messages"]
    assert first == {
        "role": "assistant",
        "content": "Reading.",
        "reasoning_content": "plan",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "read", "arguments": '{"p":1}'},
            }
        ],
    }
    assert tool == {"role": "tool", "tool_call_id": "call_1", "content": "data"}
    assert answer == {
        "role": "assistant",
        "content": "Answer",
        "reasoning_content": "done thinking",
    }, "the final answer of a tool-using stretch keeps its reasoning"
    assert chat == {"role": "assistant", "content": "Sure"}, "no tool call: not sent back"


def test_a_generic_server_gets_no_empty_reasoning() -> None:
    request = LlmRequest(model="qwen3", messages=(assistant(CALL), assistant(TextBlock(text="a"))))
    assert [sorted(m) for m in body(request)["messages"]] == [
        ["content", "role", "tool_calls"],
        ["content", "role"],
    ]


def test_reasoning_goes_back_in_the_field_the_server_uses() -> None:
    rules = wire_rules("qwen/qwen3-32b", reasoning_field="reasoning")
    request = LlmRequest(model="qwen/qwen3-32b", messages=(assistant(THOUGHT, CALL),))
    (wire,) = body(request, rules=rules)["messages"]
    assert wire["reasoning"] == "why"
    assert "reasoning_content" not in wire


THOUGHT = ReasoningBlock(text="why")
RESULT = user(ToolResultBlock(tool_call_id=CALL.id, content=(TextBlock(text="r"),)))


def reasoning_keys(request: LlmRequest, **options: Any) -> list[str | None]:
    """Per wire message: the reasoning_content sent (None: key absent; "-": not assistant)."""
    out: list[str | None] = []
    for message in body(request, **options)["messages"]:
        if message["role"] != "assistant":
            out.append("-")
        else:
            out.append(message.get("reasoning_content"))
    return out


def deepseek(*messages: Message, model: str = "deepseek-v4-flash") -> LlmRequest:
    return LlmRequest(model=model, messages=messages)


def test_deepseek_thinking_pads_every_assistant_message_of_a_tool_stretch_with_empty() -> None:
    request = deepseek(
        user(TextBlock(text="q1")),
        assistant(CALL),  # tool call, thinking came back empty
        RESULT,
        assistant(THOUGHT, CALL),
        RESULT,
        assistant(TextBlock(text="final, no reasoning")),
        user(TextBlock(text="q2")),
        assistant(THOUGHT, TextBlock(text="chat")),
        user(TextBlock(text="q3")),
    )
    assert reasoning_keys(request) == ["-", "", "-", "why", "-", "", "-", None, "-"]


def test_deepseek_thinking_is_on_by_default_for_v4_and_off_for_deepseek_chat() -> None:
    messages = (user(TextBlock(text="q")), assistant(CALL), RESULT)
    assert reasoning_keys(deepseek(*messages)) == ["-", "", "-"]
    assert reasoning_keys(deepseek(*messages, model="deepseek-v4-pro")) == ["-", "", "-"]
    assert reasoning_keys(deepseek(*messages, model="deepseek-reasoner")) == ["-", "", "-"]
    assert reasoning_keys(deepseek(*messages, model="deepseek-chat")) == ["-", None, "-"]
    enabled = reasoning_keys(deepseek(*messages, model="deepseek-chat"), thinking="enabled")
    assert enabled == ["-", "", "-"]


def test_deepseek_thinking_disabled_sends_no_reasoning() -> None:
    request = deepseek(user(TextBlock(text="q")), assistant(THOUGHT, CALL), RESULT)
    assert reasoning_keys(request, thinking="disabled") == ["-", None, "-"]


def test_a_model_switched_mid_session_still_gets_the_deepseek_rule() -> None:
    # The first stretch came from another model (no reasoning blocks at all); the session
    # then moved to a DeepSeek thinking model, which still needs the key on that history.
    request = deepseek(
        user(TextBlock(text="q1")),
        assistant(TextBlock(text="let me look"), CALL),
        RESULT,
        assistant(TextBlock(text="done")),
        user(TextBlock(text="q2")),
    )
    assert reasoning_keys(request) == ["-", "", "-", "", "-"]


def test_a_deepseek_model_behind_another_host_follows_the_deepseek_rule() -> None:
    rules = wire_rules(
        "deepseek/deepseek-v4-pro",
        base_url="https://openrouter.ai/api/v1",
        reasoning_field="reasoning",
    )
    request = deepseek(user(TextBlock(text="q")), assistant(CALL), model="deepseek/deepseek-v4-pro")
    _, wire = body(request, rules=rules)["messages"]
    assert wire["reasoning"] == ""
    assert wire_rules("any", base_url="https://api.deepseek.com/v1").deepseek_thinking


def test_temperature_is_not_sent_while_deepseek_thinks() -> None:
    thinking = LlmRequest(model="deepseek-v4-flash", messages=(), temperature=0.7)
    assert "temperature" not in body(thinking)
    assert body(thinking, thinking="disabled")["temperature"] == 0.7
    assert body(LlmRequest(model="qwen3", messages=(), temperature=0.7))["temperature"] == 0.7


def test_tool_call_turn_without_reasoning_sends_none_and_empty_arguments_become_braces() -> None:
    call = ToolCallBlock(id=CallId("c"), name="ls", arguments="")
    (wire,) = body(LlmRequest(model="m", messages=(assistant(call),)))["messages"]
    assert wire == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
        ],
    }


@pytest.mark.parametrize(
    ("content", "is_error", "expected"),
    [
        ((), False, "(no output)"),
        ((TextBlock(text=""),), False, "(no output)"),
        ((TextBlock(text="a"), TextBlock(text="b")), False, "ab"),
        ((TextBlock(text="Error: denied"),), True, "Error: denied"),
        ((TextBlock(text="denied"),), True, "Error: denied"),
        ((), True, "Error: (no output)"),
    ],
)
def test_tool_results_travel_as_text(
    content: tuple[ContentBlock, ...], is_error: bool, expected: str
) -> None:
    result = ToolResultBlock(tool_call_id=CallId("c"), content=content, is_error=is_error)
    (wire,) = body(LlmRequest(model="m", messages=(user(result),)))["messages"]
    assert wire == {"role": "tool", "tool_call_id": "c", "content": expected}


def test_user_message_sends_tool_results_before_its_text() -> None:
    result = ToolResultBlock(tool_call_id=CallId("c"), content=(TextBlock(text="r"),))
    message = user(TextBlock(text="note "), result, TextBlock(text="more"))
    assert body(LlmRequest(model="m", messages=(message,)))["messages"] == [
        {"role": "tool", "tool_call_id": "c", "content": "r"},
        {"role": "user", "content": "note more"},
    ]


def test_empty_user_message_is_still_sent() -> None:
    assert body(LlmRequest(model="m", messages=(user(),)))["messages"] == [
        {"role": "user", "content": ""}
    ]


def test_system_messages_send_their_text() -> None:
    message = Message(role="system", content=(TextBlock(text="rules"),))
    assert body(LlmRequest(model="m", messages=(message,)))["messages"] == [
        {"role": "system", "content": "rules"}
    ]


@dataclass(frozen=True, slots=True, kw_only=True)
class Marker(StringFields, ExtensionBlock):
    kind: ClassVar[str] = "test-marker"


def test_plugin_blocks_are_not_sent() -> None:
    request = LlmRequest(
        model="m",
        messages=(user(Marker(), TextBlock(text="q")), assistant(Marker(), TextBlock(text="a"))),
    )
    assert body(request)["messages"] == [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a"},
    ]


def test_non_ascii_is_kept_as_utf8() -> None:
    raw = serialize_request(LlmRequest(model="m", messages=(user(TextBlock(text="héllo ✓")),)))
    assert "héllo ✓".encode() in raw


@pytest.mark.parametrize(
    "request_",
    [
        LlmRequest(model="m", messages=(), temperature=float("nan")),
        LlmRequest(
            model="m",
            messages=(),
            tools=(ToolSchema(name="t", description="", parameters={"max": float("inf")}),),
        ),
    ],
    ids=["nan-temperature", "infinite-schema-number"],
)
def test_nan_and_infinity_are_invalid_requests(request_: LlmRequest) -> None:
    with pytest.raises(LlmError) as caught:
        serialize_request(request_)
    assert caught.value.code == LlmCode.INVALID_REQUEST
