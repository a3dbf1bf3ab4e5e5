"""Token accounting: how full a session's context is (compact layer).

The provider's own count is best: the last ``assistant/message`` on the surface carries the
usage of the request that produced it (prompt = uncached input + cache reads, plus its
output, which is in the history from then on) — unless a compaction came after it, since it
then measured the history the summary replaced. What was added after it, and any surface with
no usage at all, is estimated at ``chars_per_token`` characters a token plus a small overhead
per event. The model's window comes from the configuration (known defaults for the shipped
models, or a setting).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from dsh_lsp.llm import PluginSource, TokenUsage
from dsh_lsp.session import (
    AssistantMessagePayload,
    ContextMessagePayload,
    Session,
    SessionEvent,
    SteeringMessagePayload,
    UserMessagePayload,
)

EVENT_OVERHEAD: Final = 8
"""Estimated tokens of framing per surface event."""

KNOWN_WINDOWS: Final[Mapping[str, int]] = {
    "deepseek-v4-flash": 128_000,
    "deepseek-v4-pro": 128_000,
    "deepseek-chat": 128_000,
    "deepseek-reasoner": 128_000,
}
"""Context windows (tokens) of the models the shipped adapter knows."""

DEFAULT_WINDOW: Final = 128_000

SUMMARY_SOURCE: Final = PluginSource(plugin="compaction")
"""The source of a compaction's summary message."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextUsage:
    """How many tokens the next request will carry, of how many the model takes."""

    used: int
    window: int
    estimated: bool
    """True when no provider count backs the number."""

    @property
    def ratio(self) -> float:
        """``used / window``."""
        return self.used / self.window if self.window else 0.0


def window_of(model: str, windows: Mapping[str, int], default: int = DEFAULT_WINDOW) -> int:
    """The context window of ``model``: ``windows`` first, then ``KNOWN_WINDOWS``."""
    return windows.get(model) or KNOWN_WINDOWS.get(model) or default


def estimate_event(event: SessionEvent, chars_per_token: float) -> int:
    """Estimated tokens one surface event adds to a request."""
    record = event.payload.to_json()
    text = json.dumps(record.get("content", record), ensure_ascii=False)
    return int(len(text) / chars_per_token) + EVENT_OVERHEAD


def usage_tokens(usage: TokenUsage | None) -> int | None:
    """Prompt plus output tokens of a logged usage, if there is one."""
    if usage is None:
        return None
    total = usage.input_tokens + (usage.cache_read_tokens or 0) + usage.output_tokens
    return total or None


def is_summary(event: SessionEvent) -> bool:
    """Whether ``event`` is a compaction's summary message."""
    match event.payload:
        case (
            UserMessagePayload(source=source)
            | ContextMessagePayload(source=source)
            | SteeringMessagePayload(source=source)
        ):
            return source == SUMMARY_SOURCE
        case _:
            return False


_Events = Sequence[SessionEvent] | Mapping[int, SessionEvent]
"""Events by seq: the session's log, or a dict of given nodes."""


def surface_events(session: Session) -> list[SessionEvent]:
    """The events on the session's surface, in surface order."""
    events = session.events
    return [events[seq] for seq in session.surface_seqs()]


def context_usage(
    session: Session,
    *,
    window: int,
    system_prompt: str = "",
    chars_per_token: float = 4.0,
    nodes: Sequence[SessionEvent] | None = None,
) -> ContextUsage:
    """The usage of the session's next request (see the module docstring).

    ``nodes`` stand for the session's surface when given. With a provider count on the
    surface this reads only the events after it (and the surface's seqs), not the whole
    history: it runs before every step.
    """
    events: _Events
    if nodes is None:
        events = session.events
        seqs = session.surface_seqs()
    else:
        events, seqs = _by_seq(nodes)
    found = _last_count(events, seqs)
    if found is None:
        surface = [events[seq] for seq in seqs]
        base = int(len(system_prompt) / chars_per_token)
        total = base + sum(estimate_event(e, chars_per_token) for e in surface)
        return ContextUsage(used=total, window=window, estimated=True)
    counted, after = found
    extra = sum(estimate_event(events[seq], chars_per_token) for seq in seqs[after:])
    return ContextUsage(used=counted + extra, window=window, estimated=False)


def _by_seq(nodes: Sequence[SessionEvent]) -> tuple[_Events, tuple[int, ...]]:
    return {event.seq: event for event in nodes}, tuple(event.seq for event in nodes)


def _last_count(events: _Events, seqs: Sequence[int]) -> tuple[int, int] | None:
    """The tokens of the last ``assistant/message`` on the surface with a provider count
    that no compaction summary on the surface postdates, and the surface index after it.

    A summary postdates the count when its seq is higher. Those after the message in surface
    order are seen on the way back; one before it is possible only where a seq higher than
    the message's sits before it (``max``, without decoding anything), which after a
    compaction holds until the next counted answer: then the surface's summaries are looked
    up once.
    """
    later_summary = -1
    newest_summary: int | None = None
    """The highest summary seq on the whole surface, once needed."""
    for index in range(len(seqs) - 1, -1, -1):
        event = events[seqs[index]]
        payload = event.payload
        if isinstance(payload, AssistantMessagePayload) and event.seq > later_summary:
            counted = usage_tokens(payload.usage)
            if counted is None:
                continue
            if newest_summary is None:
                if index == 0 or max(seqs[:index]) < event.seq:
                    return counted, index + 1
                summaries = (seq for seq in seqs[:index] if is_summary(events[seq]))
                newest_summary = max(later_summary, max(summaries, default=-1))
            if event.seq > newest_summary:
                return counted, index + 1
        elif is_summary(event):
            later_summary = max(later_summary, event.seq)
    return None
