"""The process's redactor and the log filter that is its second net (issue 16)."""

from __future__ import annotations

import logging

from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.kernel import RedactingFilter, Redactor

KEY = "sk-test-canary-7f3a9c"


def test_header_forms_and_bare_values_are_masked() -> None:
    redactor = Redactor()
    redactor.add(KEY)
    assert redactor.redact(f"Authorization: Bearer {KEY}") == "Authorization: Bearer ***"
    other = "Authorization: bearer abcdefgh12345678XYZ"
    assert redactor.redact(other) == "Authorization: bearer ***"
    assert redactor.redact("Bearer tokens are fine") == "Bearer tokens are fine"
    assert redactor.redact(f"x {KEY} y") == "x *** y"
    assert redactor.unsafe_tail("abc sk-te") == 5
    assert redactor.unsafe_tail("abc") == 0


def test_the_log_filter_masks_messages_args_and_tracebacks() -> None:
    redactor = Redactor()
    redactor.add(KEY)
    redactor.add("short")
    logger = logging.getLogger("tests.secrets")
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(self.format(record))

    handler = Keep()
    handler.addFilter(RedactingFilter(redactor))
    logger.addHandler(handler)
    try:
        logger.warning("header Authorization: Bearer %s", KEY)
        try:
            raise ValueError(KEY)
        except ValueError:
            logger.exception("failed")
        logger.warning("short stays")
    finally:
        logger.removeHandler(handler)
    assert records[0] == "header Authorization: Bearer ***"
    assert KEY not in records[1]
    assert "***" in records[1]
    assert records[2] == "short stays"


def _longest_secret_start(secrets: list[str], text: str) -> int:
    """The plain definition: the longest proper prefix of a secret that ends ``text``."""
    return max(
        (
            size
            for secret in secrets
            for size in range(1, min(len(secret) - 1, len(text)) + 1)
            if text.endswith(secret[:size])
        ),
        default=0,
    )


@given(
    secrets=st.lists(st.text("abc-", min_size=8, max_size=12), min_size=1, max_size=3),
    text=st.text("abc- x", max_size=30),
)
def test_the_unsafe_tail_is_the_longest_suffix_that_starts_a_secret(
    secrets: list[str], text: str
) -> None:
    redactor = Redactor()
    for secret in secrets:
        redactor.add(secret)
    assert redactor.unsafe_tail(text) == _longest_secret_start(secrets, text)
