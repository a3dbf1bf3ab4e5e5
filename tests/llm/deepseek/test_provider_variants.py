"""Provider variants the adapter reads (issue 17): reasoning field names, inline think tags,
tool-call fragment conventions, error objects of every class, local endpoints and keys."""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Mapping

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh_lsp.llm import (
    BlockAssembler,
    CallId,
    LlmCode,
    LlmError,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolCallDelta,
    assemble,
)
from dsh_lsp.llm.deepseek import (
    DeepSeekAdapter,
    StreamTranslator,
    ThinkSplitter,
    ThinkTags,
    error_from_payload,
    error_from_response,
    key_required,
    parse_chat_chunk,
)
from dsh_lsp.llm.deepseek.wire import WireError
from dsh_lsp.testing import ErrorResponse, ScriptedServer, completion
from tests.llm.deepseek.fakes import REQUEST, collect


def fold(payloads: list[Mapping[str, object]], think_tags: ThinkTags = "auto") -> BlockAssembler:
    translator = StreamTranslator(think_tags=think_tags)
    assembler = BlockAssembler()
    for payload in payloads:
        for chunk in translator.feed(parse_chat_chunk(json.dumps(payload))):
            assembler.feed(chunk)
    for chunk in translator.finish():
        assembler.feed(chunk)
    return assembler


def delta(**fields: object) -> dict[str, object]:
    return {"choices": [{"delta": fields}]}


def split(blocks: BlockAssembler) -> tuple[str, str]:
    content = blocks.content()
    reasoning = "".join(b.text for b in content if isinstance(b, ReasoningBlock))
    text = "".join(b.text for b in content if isinstance(b, TextBlock))
    return reasoning, text


# --- reasoning field names -------------------------------------------------------------


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_is_read_under_either_field_name(field: str) -> None:
    translator = StreamTranslator()
    translator.feed(parse_chat_chunk(json.dumps(delta(**{field: "hm"}))))
    assert translator.reasoning_field == field
    assert split(fold([delta(**{field: "hm"}), delta(content="ok")])) == ("hm", "ok")


def test_a_server_sending_both_names_is_not_doubled() -> None:
    both = delta(reasoning_content="one", reasoning="one")
    assert split(fold([both, delta(content="x")])) == ("one", "x")


# --- inline think tags -----------------------------------------------------------------

THINKING = "<think>\nstep one\nstep two\n</think>\n\nThe answer is <b>42</b>."


@settings(deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=len(THINKING)), max_size=12))
def test_think_tags_split_anywhere_read_the_same(cuts: list[int]) -> None:
    bounds = [0, *sorted(set(cuts)), len(THINKING)]
    pieces = [THINKING[a:b] for a, b in itertools.pairwise(bounds) if b > a]
    assert split(fold([delta(content=p) for p in pieces])) == (
        "step one\nstep two\n",
        "The answer is <b>42</b>.",
    )


@pytest.mark.parametrize(
    ("mode", "content", "expected"),
    [
        ("auto", "plain <think> later", ("", "plain <think> later")),
        ("auto", "<thin", ("", "<thin")),
        ("auto", "<think>never closed", ("never closed", "")),
        ("off", "<think>x</think>y", ("", "<think>x</think>y")),
        ("on", "opened by the template</think>answer", ("opened by the template", "answer")),
        ("on", "<think>x</think>y", ("x", "y")),
    ],
)
def test_think_tag_modes(mode: ThinkTags, content: str, expected: tuple[str, str]) -> None:
    assert split(fold([delta(content=content)], think_tags=mode)) == expected


def test_the_splitter_holds_back_only_a_possible_tag() -> None:
    splitter = ThinkSplitter("auto")
    assert splitter.feed("<think>abc</th") == [("reasoning", "abc")]
    assert splitter.feed("x") == [("reasoning", "</thx")]
    assert splitter.close() == []


# --- tool-call fragments ---------------------------------------------------------------


def calls(blocks: BlockAssembler) -> list[ToolCallBlock]:
    return [b for b in blocks.content() if isinstance(b, ToolCallBlock)]


def fragment(**fields: object) -> dict[str, object]:
    return delta(tool_calls=[fields])


def test_empty_id_and_name_on_follow_on_fragments_erase_nothing() -> None:
    blocks = fold(
        [
            fragment(index=0, id="call_a", function={"name": "read", "arguments": ""}),
            fragment(index=0, id="", function={"name": "", "arguments": '{"p":'}),
            fragment(index=0, id=None, function={"name": None, "arguments": "1}"}),
        ]
    )
    assert calls(blocks) == [ToolCallBlock(id=CallId("call_a"), name="read", arguments='{"p":1}')]


def test_fragments_without_an_index_continue_the_last_call_or_start_one_by_id() -> None:
    blocks = fold(
        [
            fragment(id="a", function={"name": "read", "arguments": "{"}),
            fragment(id="", function={"arguments": "}"}),
            fragment(id="b", function={"name": "ls", "arguments": "{}"}),
        ]
    )
    assert [(c.id, c.name, c.arguments) for c in calls(blocks)] == [
        ("a", "read", "{}"),
        ("b", "ls", "{}"),
    ]


def test_a_new_id_under_a_used_index_is_a_new_call() -> None:
    blocks = fold(
        [
            fragment(index=0, id="a", function={"name": "read", "arguments": "{}"}),
            fragment(index=0, id="b", function={"name": "ls", "arguments": "{}"}),
        ]
    )
    assert [(c.id, c.name) for c in calls(blocks)] == [("a", "read"), ("b", "ls")]


def test_the_assembler_ignores_empty_ids_too() -> None:
    assembler = BlockAssembler()
    assembler.feed(ToolCallDelta(index=0, id=CallId("x"), name="n", arguments_delta="{"))
    assembler.feed(ToolCallDelta(index=0, id=CallId(""), name="", arguments_delta="}"))
    assert assembler.content() == (ToolCallBlock(id=CallId("x"), name="n", arguments="{}"),)


# --- error objects ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "code"),
    [
        ({"message": "m", "code": 400}, LlmCode.INVALID_REQUEST),
        ({"message": "m", "code": "429"}, LlmCode.RATE_LIMIT),
        ({"message": "m", "status": 503}, LlmCode.SERVER),
        ({"message": "m", "code": 401}, LlmCode.AUTH),
        ({"message": "m", "type": "invalid_request"}, LlmCode.INVALID_REQUEST),
        (
            {
                "message": "too long",
                "type": "invalid_request_error",
                "code": "context_length_exceeded",
            },
            LlmCode.CONTEXT_WINDOW_EXCEEDED,
        ),
        (
            {"message": "maximum context length is 8192", "code": 400},
            LlmCode.CONTEXT_WINDOW_EXCEEDED,
        ),
        ({"message": "m", "type": "rate_limit_error"}, LlmCode.RATE_LIMIT),
        ({"message": "m", "status": "RESOURCE_EXHAUSTED"}, LlmCode.RATE_LIMIT),
        ({"message": "m", "status": "UNAVAILABLE"}, LlmCode.SERVER),
        ({"message": "m", "type": "overloaded_error"}, LlmCode.SERVER),
        ({"message": "m", "code": "insufficient_quota"}, LlmCode.QUOTA_EXCEEDED),
        ({"message": "m", "type": "authentication_error"}, LlmCode.AUTH),
        ({"message": "m", "type": "timeout"}, LlmCode.TIMEOUT),
        ({"message": "m"}, LlmCode.SERVER),
        ({"message": "m", "code": "something_new"}, LlmCode.SERVER),
    ],
)
def test_an_error_object_is_coded_by_its_fields(error: WireError, code: str) -> None:
    assert error_from_payload(error, where="mid-stream").code == code


def test_openrouter_metadata_reaches_the_message() -> None:
    raw = json.dumps({"error": {"message": "upstream says no", "type": "invalid_request_error"}})
    error: WireError = {
        "message": "Provider returned error",
        "code": 400,
        "metadata": {"raw": raw, "provider_name": "DeepSeek"},
    }
    failure = error_from_payload(error, where="mid-stream")
    assert failure.provider_message == "Provider returned error (DeepSeek: upstream says no)"
    body = json.dumps({"error": error}).encode()
    http = error_from_response(400, body, retry_after=None, redact=lambda t: t)
    assert http.provider_message == "Provider returned error (DeepSeek: upstream says no)"
    assert http.code == LlmCode.INVALID_REQUEST
    plain: WireError = {"message": "x", "metadata": {"raw": "not json at all"}}
    assert error_from_payload(plain, where="w").provider_message == "x (not json at all)"


async def test_a_json_error_with_an_event_stream_content_type_is_read_too(
    server: ScriptedServer, client: httpx.AsyncClient
) -> None:
    body = '{"error": {"message": "bad model", "type": "invalid_request_error"}}'
    server.enqueue(ErrorResponse(status=200, body=body, content_type="text/event-stream"))
    adapter = DeepSeekAdapter(client, base_url=server.base_url, api_key="k")
    with pytest.raises(LlmError) as caught:
        await collect(adapter)
    assert caught.value.code == LlmCode.INVALID_REQUEST
    assert caught.value.provider_message == "bad model"
    assert len(server.requests) == 1


# --- endpoints and keys ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "required"),
    [
        ("http://localhost:11434/v1", False),
        ("http://127.0.0.1:8000/v1", False),
        ("http://127.8.9.1:8000", False),
        ("http://[::1]:8080/v1", False),
        ("http://10.0.0.5:8000/v1", False),
        ("http://172.16.3.4:30000/v1", False),
        ("http://192.168.1.20:11434/v1", False),
        ("http://169.254.1.1/v1", False),
        ("http://[fd00::1]/v1", False),
        ("http://vllm:8000/v1", False),
        ("http://gpu-box.local:8000/v1", False),
        ("http://llm.internal/v1", False),
        ("https://api.deepseek.com/v1", True),
        ("https://openrouter.ai/api/v1", True),
        ("http://8.8.8.8/v1", True),
        ("http://172.32.0.1/v1", True),
        ("not a url", True),
    ],
)
def test_key_required_only_for_public_endpoints(url: str, required: bool) -> None:
    assert key_required(url) is required


async def test_no_key_sends_no_authorization_header(
    server: ScriptedServer, client: httpx.AsyncClient
) -> None:
    server.enqueue(completion(text="local"))
    adapter = DeepSeekAdapter(client, base_url=server.base_url, api_key="")
    result = await assemble(adapter.stream(REQUEST))
    assert result.message.content == (TextBlock(text="local"),)
    assert "authorization" not in server.requests[0].headers


def test_a_base_url_without_scheme_fails_at_once_naming_the_setting(
    client: httpx.AsyncClient,
) -> None:
    with pytest.raises(ValueError, match="baseUrl 'localhost:11434/v1' is not an http"):
        DeepSeekAdapter(client, base_url="localhost:11434/v1", api_key="")


async def test_endpoint_and_model_are_logged_at_info(
    server: ScriptedServer, client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    server.enqueue(completion(text="a"), completion(text="b"))
    with caplog.at_level(logging.INFO, logger="dsh_lsp.llm.deepseek.adapter"):
        adapter = DeepSeekAdapter(client, base_url=server.base_url + "/", api_key="sk-secret")
        await collect(adapter)
        await collect(adapter)
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert lines == [
        f"model endpoint {server.base_url}/v1/chat/completions (API key set)",
        f"model deepseek-v4-flash at {server.base_url}/v1 (thinking default)",
    ]
    assert all("sk-secret" not in line for line in lines)
