"""The pure retry policy and Retry-After parsing."""

from __future__ import annotations

import email.utils

import pytest

from dsh_lsp.llm import LlmCode, LlmError, RetryPolicy, parse_retry_after

NOW = 1_800_000_000.0


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, None),
        ("7", 7.0),
        (" 1.5 ", 1.5),
        ("0", 0.0),
        ("-3", None),
        ("nan", None),
        ("inf", None),
        ("soon", None),
        (email.utils.formatdate(NOW + 30, usegmt=True), 30.0),
        (email.utils.formatdate(NOW - 30, usegmt=True), 0.0),
    ],
)
def test_parse_retry_after(header: str | None, expected: float | None) -> None:
    assert parse_retry_after(header, NOW) == expected


def error(code: str, retry_after: float | None = None) -> LlmError:
    return LlmError("x", code=code, retry_after=retry_after)


def test_backoff_doubles_up_to_the_cap_with_centred_jitter() -> None:
    policy = RetryPolicy(max_retries=10, initial_delay=0.5, max_delay=3.0, jitter=0.1)
    delays = [policy.delay(error(LlmCode.SERVER), n, 0.5) for n in range(5)]
    assert delays == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert policy.delay(error(LlmCode.SERVER), 1, 0.0) == pytest.approx(0.9)
    assert policy.delay(error(LlmCode.SERVER), 1, 1.0) == pytest.approx(1.1)


def test_retry_after_replaces_the_backoff_within_its_cap() -> None:
    policy = RetryPolicy(max_retry_after=60.0)
    assert policy.delay(error(LlmCode.RATE_LIMIT, 42.0), 0, 0.3) == 42.0
    assert policy.delay(error(LlmCode.RATE_LIMIT, 61.0), 0, 0.3) is None


@pytest.mark.parametrize(
    "code",
    [
        LlmCode.RATE_LIMIT,
        LlmCode.SERVER,
        LlmCode.TIMEOUT,
        LlmCode.TRANSPORT,
        LlmCode.EMPTY_RESPONSE,
    ],
)
def test_retryable_codes_retry_until_the_budget_is_spent(code: str) -> None:
    policy = RetryPolicy(max_retries=2)
    assert policy.delay(error(code), 1, 0.5) is not None
    assert policy.delay(error(code), 2, 0.5) is None


@pytest.mark.parametrize(
    "code",
    [
        LlmCode.AUTH,
        LlmCode.INVALID_REQUEST,
        LlmCode.CONTEXT_WINDOW_EXCEEDED,
        LlmCode.STREAM_CLOSED,
        LlmCode.MALFORMED_RESPONSE,
        LlmCode.QUOTA_EXCEEDED,
        "HTTP_404",
    ],
)
def test_other_codes_never_retry(code: str) -> None:
    assert RetryPolicy().delay(error(code), 0, 0.5) is None


def test_zero_retries_disables_retrying() -> None:
    assert RetryPolicy(max_retries=0).delay(error(LlmCode.SERVER), 0, 0.5) is None
