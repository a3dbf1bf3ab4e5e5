"""Token usage of one model call (llm layer).

Input counts are disjoint: ``input_tokens`` counts only the prompt tokens that missed the
provider's cache, ``cache_read_tokens`` the ones served from it, so their sum is the whole
prompt. ``reasoning_tokens`` is the part of ``output_tokens`` the model spent thinking (a
breakdown, not an addition). ``None`` means the provider did not report that figure.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class TokenUsage:
    """Token counts reported for one model call."""

    input_tokens: int
    """Prompt tokens not served from the cache."""
    output_tokens: int
    """Completion tokens, reasoning included."""
    cache_read_tokens: int | None = None
    """Prompt tokens served from the provider's cache."""
    reasoning_tokens: int | None = None
    """Completion tokens spent on reasoning (already inside ``output_tokens``)."""
