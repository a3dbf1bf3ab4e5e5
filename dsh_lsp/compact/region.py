"""Which part of the surface a compaction replaces (compact layer).

The region is a prefix of the surface's nodes; the tail kept verbatim is the shortest run of
whole nodes worth at least ``retain_tokens``. A split point is valid only where the prefix is
tool-pairing balanced: every tool call of an assistant message in the prefix is answered by
a ``tool/result`` in the prefix, so a call and its result are never separated (a provider
rejects a result without its call, and a call without its result).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dsh_lsp.llm import ToolCallBlock
from dsh_lsp.session import AssistantMessagePayload, SessionEvent, ToolResultPayload

from .accounting import estimate_event


@dataclass(frozen=True, slots=True, kw_only=True)
class Region:
    """Surface nodes ``nodes[:end]`` (``end`` > 1) to summarize."""

    end: int
    start_seq: int
    end_seq: int


def _calls(event: SessionEvent) -> set[str]:
    payload = event.payload
    if not isinstance(payload, AssistantMessagePayload):
        return set()
    return {block.id for block in payload.content if isinstance(block, ToolCallBlock)}


def balanced_prefixes(nodes: Sequence[SessionEvent]) -> list[int]:
    """Every ``k`` (1 … len) such that ``nodes[:k]`` is tool-pairing balanced."""
    open_calls: set[str] = set()
    out: list[int] = []
    for index, event in enumerate(nodes):
        open_calls |= _calls(event)
        payload = event.payload
        if isinstance(payload, ToolResultPayload):
            open_calls.discard(payload.call_id)
        if not open_calls:
            out.append(index + 1)
    return out


def choose_region(
    nodes: Sequence[SessionEvent], *, retain_tokens: int, chars_per_token: float
) -> Region | None:
    """The largest balanced prefix leaving a tail of at least ``retain_tokens`` (and at
    least one node), or None when no prefix of two or more nodes qualifies."""
    tail = 0
    budget: list[int] = [0] * (len(nodes) + 1)
    for index in range(len(nodes) - 1, -1, -1):
        tail += estimate_event(nodes[index], chars_per_token)
        budget[index] = tail
    best = None
    for k in balanced_prefixes(nodes):
        if k >= 2 and k < len(nodes) and budget[k] >= retain_tokens:
            best = k
    if best is None:
        # a tail smaller than asked is fine when the region is what overflows
        candidates = [k for k in balanced_prefixes(nodes) if 2 <= k < len(nodes)]
        if not candidates:
            return None
        best = candidates[-1]
    return Region(end=best, start_seq=nodes[0].seq, end_seq=nodes[best - 1].seq)
