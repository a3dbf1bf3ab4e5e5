"""HTTP status → LlmError code table, provider messages, non-JSON bodies, redaction."""

from __future__ import annotations

import json

import pytest

from dsh_lsp.llm import LlmCode
from dsh_lsp.llm.deepseek import error_from_response


def json_body(message: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": "t", "code": "c"}}).encode()


def same(text: str) -> str:
    return text


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (400, LlmCode.INVALID_REQUEST),
        (401, LlmCode.AUTH),
        (402, LlmCode.QUOTA_EXCEEDED),
        (403, LlmCode.AUTH),
        (404, "HTTP_404"),
        (408, LlmCode.TIMEOUT),
        (409, "HTTP_409"),
        (413, LlmCode.INVALID_REQUEST),
        (422, LlmCode.INVALID_REQUEST),
        (429, LlmCode.RATE_LIMIT),
        (500, LlmCode.SERVER),
        (502, LlmCode.SERVER),
        (503, LlmCode.SERVER),
    ],
)
def test_status_code_table(status: int, code: str) -> None:
    error = error_from_response(status, json_body("why"), retry_after=None, redact=same)
    assert (error.code, error.status, error.provider_message) == (code, status, "why")
    assert str(error) == f"model API error (HTTP {status}): why"


@pytest.mark.parametrize(
    "message",
    [
        "This model's maximum context length is 131072 tokens. However, you requested 140000"
        " tokens (139000 in the messages, 1000 in the completion).",
        "Prompt is too long",
        "the request exceeds the model's context window",
        "context_length_exceeded",
    ],
)
def test_400_with_overflow_wording_is_context_window_exceeded(message: str) -> None:
    error = error_from_response(400, json_body(message), retry_after=None, redact=same)
    assert error.code == LlmCode.CONTEXT_WINDOW_EXCEEDED


def test_overflow_wording_only_counts_on_400() -> None:
    error = error_from_response(
        422, json_body("maximum context length"), retry_after=None, redact=same
    )
    assert error.code == LlmCode.INVALID_REQUEST


@pytest.mark.parametrize(
    ("body", "provider_message"),
    [
        (
            b"<html>\n  <body>Bad   Gateway</body>\n</html>",
            "<html> <body>Bad Gateway</body> </html>",
        ),
        (b"", None),
        (b'{"detail": "not the error shape"}', '{"detail": "not the error shape"}'),
        (b"x" * 1000, "x" * 200),
    ],
    ids=["html", "empty", "other-json", "long"],
)
def test_non_json_bodies_keep_a_short_excerpt(body: bytes, provider_message: str | None) -> None:
    error = error_from_response(502, body, retry_after=None, redact=same)
    assert error.code == LlmCode.SERVER
    assert error.provider_message == provider_message
    expected = "model API error (HTTP 502)"
    assert str(error) == (
        expected if provider_message is None else f"{expected}: {provider_message}"
    )


def test_retry_after_is_carried() -> None:
    error = error_from_response(429, b"", retry_after=3.0, redact=same)
    assert error.retry_after == 3.0


def test_provider_text_is_redacted() -> None:
    body = json_body("invalid key sk-secret-123 supplied")
    error = error_from_response(
        401, body, retry_after=None, redact=lambda t: t.replace("sk-secret-123", "***")
    )
    assert "sk-secret-123" not in str(error)
    assert error.provider_message == "invalid key *** supplied"
