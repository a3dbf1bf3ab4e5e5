"""The retry policy for model calls that failed before their first chunk (llm layer).

Pure: no sleeping, no clock reads. The adapter asks ``RetryPolicy.delay`` how long to wait
before the next attempt and does the waiting itself (with an injectable sleep). A call is
retried only while nothing has been delivered to the caller, so a retry can never duplicate
chunks that were already logged.
"""

from __future__ import annotations

import email.utils
from dataclasses import dataclass
from typing import Final

from dsh_lsp.kernel import EmitEvent

from .errors import LlmCode, LlmError
from .ids import SessionId

RETRYABLE_CODES: Final = frozenset(
    {LlmCode.RATE_LIMIT, LlmCode.SERVER, LlmCode.TIMEOUT, LlmCode.TRANSPORT, LlmCode.EMPTY_RESPONSE}
)
"""Codes of failures that a later identical request may not hit."""


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a ``Retry-After`` header value, or ``None`` if absent or unparsable.

    Accepts delta-seconds (``"7"``, ``"1.5"``) or an HTTP date, measured against ``now`` (Unix
    seconds). A date in the past gives ``0.0``.
    """
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - now)
    if seconds != seconds or seconds < 0 or seconds == float("inf"):
        return None
    return seconds


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryPolicy:
    """Bounded exponential backoff with jitter that honours ``Retry-After``."""

    max_retries: int = 5
    """Retries after the first attempt; 0 disables retrying."""
    initial_delay: float = 0.5
    """The backoff before the first retry, in seconds; it doubles per retry."""
    max_delay: float = 10.0
    """The cap on a computed backoff, in seconds."""
    jitter: float = 0.1
    """The relative spread of the computed backoff: ±10 % by default."""
    max_retry_after: float = 60.0
    """The longest ``Retry-After`` wait honoured; a longer request gives up instead."""

    def delay(self, error: LlmError, retries_done: int, random_unit: float) -> float | None:
        """Seconds to wait before retrying after ``error``, or ``None`` to give up.

        ``retries_done`` counts retries already made; ``random_unit`` is a draw from [0, 1)
        that spreads the computed backoff. A ``Retry-After`` the provider sent replaces the
        computed backoff.
        """
        if error.code not in RETRYABLE_CODES or retries_done >= self.max_retries:
            return None
        if error.retry_after is not None:
            if error.retry_after > self.max_retry_after:
                return None
            return error.retry_after
        base = min(self.max_delay, self.initial_delay * 2.0**retries_done)
        return max(0.0, base * (1.0 + self.jitter * (2.0 * random_unit - 1.0)))


@dataclass(frozen=True, slots=True, kw_only=True)
class LlmRetry:
    """A model call failed before its first chunk and is about to be retried."""

    session_id: SessionId | None
    """The session the call belongs to (``LlmRequest.session_id``), if any."""
    attempt: int
    """This retry's number, from 1."""
    max_retries: int
    reason: str
    """What failed: the HTTP status (``"429"``) or the error code (``"TIMEOUT"``)."""
    delay: float
    """Seconds until the retry starts."""

    @property
    def message(self) -> str:
        """``retrying (2/5) after 429``."""
        return f"retrying ({self.attempt}/{self.max_retries}) after {self.reason}"


LLM_RETRY: EmitEvent[LlmRetry] = EmitEvent("llm/retry")
"""Emitted (contained) by adapters before each retry, so front ends can show progress."""
