"""The wire validators: declared fields survive, undeclared ones drop, bad shapes fail."""

from __future__ import annotations

import json
import typing

import pytest

from dsh_lsp.llm import LlmCode, LlmError
from dsh_lsp.llm.deepseek import ChatChunk, parse_chat_chunk
from dsh_lsp.llm.deepseek.wire import (
    Choice,
    CompletionTokensDetails,
    Delta,
    ErrorMetadata,
    FunctionFragment,
    PromptTokensDetails,
    ToolCallFragment,
    WireError,
    WireUsage,
    parse_error_body,
)

FULL = {
    "id": "dropped",
    "choices": [
        {
            "index": 0,
            "delta": {
                "role": "assistant",
                "content": "c",
                "reasoning_content": "r",
                "reasoning": "r2",
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "x",
                        "type": "function",
                        "function": {"name": "n", "arguments": "{}", "extra": 1},
                    }
                ],
            },
            "message": {"content": "whole"},
            "finish_reason": "stop",
            "logprobs": None,
        }
    ],
    "usage": {
        "prompt_tokens": 1,
        "completion_tokens": 2,
        "total_tokens": 3,
        "prompt_cache_hit_tokens": 0,
        "prompt_tokens_details": {"cached_tokens": 0, "audio": 1},
        "completion_tokens_details": {"reasoning_tokens": 1},
    },
    "error": {
        "message": "m",
        "type": "t",
        "code": 7,
        "param": None,
        "status": "INVALID_ARGUMENT",
        "metadata": {"raw": {"any": ["json"]}, "provider_name": "P", "is_byok": False},
    },
}


def keys(shape: type) -> set[str]:
    return set(typing.get_type_hints(shape))


def test_every_declared_field_survives_and_undeclared_ones_drop() -> None:
    chunk = parse_chat_chunk(json.dumps(FULL))
    assert set(chunk) == keys(ChatChunk)
    choice = (chunk.get("choices") or [])[0]
    assert set(choice) == keys(Choice)
    delta = choice.get("delta") or {}
    assert set(delta) == keys(Delta)
    call = (delta.get("tool_calls") or [])[0]
    assert set(call) == keys(ToolCallFragment)
    assert set(call.get("function") or {}) == keys(FunctionFragment)
    usage = chunk.get("usage") or {}
    assert set(usage) == keys(WireUsage)
    assert set(usage.get("prompt_tokens_details") or {}) == keys(PromptTokensDetails)
    assert set(usage.get("completion_tokens_details") or {}) == keys(CompletionTokensDetails)
    error = chunk.get("error") or {}
    assert set(error) == keys(WireError)
    assert set(error.get("metadata") or {}) == keys(ErrorMetadata)
    assert error.get("metadata") == {"raw": {"any": ["json"]}, "provider_name": "P"}


def test_nulls_are_accepted_everywhere() -> None:
    payload = {"choices": [{"delta": None, "finish_reason": None}], "usage": None, "error": None}
    assert parse_chat_chunk(json.dumps(payload)) == payload


@pytest.mark.parametrize(
    "data",
    [
        "{not json",
        "[]",
        '{"choices": {"delta": {}}}',
        '{"choices": [{"delta": {"content": 5}}]}',
        '{"choices": [{"delta": {"tool_calls": [{"index": "first"}]}}]}',
        '{"usage": {"prompt_tokens": "many"}}',
    ],
)
def test_bad_payloads_are_malformed_responses(data: str) -> None:
    with pytest.raises(LlmError) as caught:
        parse_chat_chunk(data)
    assert caught.value.code == LlmCode.MALFORMED_RESPONSE


def test_error_bodies() -> None:
    assert parse_error_body(b'{"error": {"message": "m", "x": 1}}') == {"error": {"message": "m"}}
    assert parse_error_body(b'{"detail": "other"}') is None
    assert parse_error_body(b"<html>") is None
