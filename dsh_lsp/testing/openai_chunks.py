"""Builders of OpenAI-compatible stream payloads and whole scripted answers (testing kit).

The payload builders return the JSON text of one ``data:`` line, shaped like DeepSeek's live
stream (thinking answers open with ``reasoning_content: ""``). ``completion`` assembles a full
``StreamResponse``: reasoning and text split into pieces, tool calls whose argument JSON is
cut into fragments of ``fragment_size`` characters (parallel calls interleaved when asked),
the finish reason with usage, and ``[DONE]`` unless told otherwise — optionally paced by a
delay after every event.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .script import Delay, ErrorResponse, Event, Step, StreamResponse

DONE = Event(data="[DONE]")
"""The end-of-stream sentinel event."""


def _dumps(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def delta_payload(
    delta: dict[str, Any],  # Any: a free-form wire delta, as the provider would send it
    *,
    finish_reason: str | None = None,
    usage: dict[str, Any] | None = None,  # Any: free-form wire usage object
) -> str:
    """One chunk with a single choice carrying ``delta``."""
    chunk: dict[str, Any] = {  # Any: free-form wire JSON
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "model": "scripted",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }
    if usage is not None:
        chunk["usage"] = usage
    return _dumps(chunk)


def usage_payload(usage: dict[str, Any]) -> str:  # Any: free-form wire usage object
    """A trailing usage-only chunk (``choices: []``)."""
    return _dumps({"id": "chatcmpl-scripted", "choices": [], "usage": usage})


def wire_usage(
    *, prompt: int, completion: int, cached: int = 0, reasoning: int | None = None
) -> dict[str, Any]:  # Any: free-form wire usage object
    """A DeepSeek-shaped usage object (``prompt`` counts cache hits too)."""
    usage: dict[str, Any] = {  # Any: free-form wire usage object
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_cache_hit_tokens": cached,
        "prompt_cache_miss_tokens": prompt - cached,
        "prompt_tokens_details": {"cached_tokens": cached},
    }
    if reasoning is not None:
        usage["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    return usage


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallSpec:
    """A tool call to stream: its id, name and full argument JSON text."""

    id: str
    name: str
    arguments: str


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def tool_call_events(
    calls: Sequence[ToolCallSpec], *, fragment_size: int = 3, interleave: bool = False
) -> list[Step]:
    """Events streaming ``calls`` (wire index = position), arguments cut into fragments."""
    per_call: list[list[Step]] = []
    for index, call in enumerate(calls):
        head = {"index": index, "id": call.id, "type": "function"}
        first = {"tool_calls": [{**head, "function": {"name": call.name, "arguments": ""}}]}
        events: list[Step] = [Event(data=delta_payload(first))]
        for piece in _pieces(call.arguments, fragment_size):
            fragment = {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}
            events.append(Event(data=delta_payload(fragment)))
        per_call.append(events)
    if not interleave:
        return [event for events in per_call for event in events]
    out: list[Step] = []
    for position in range(max((len(e) for e in per_call), default=0)):
        out.extend(events[position] for events in per_call if position < len(events))
    return out


def completion(
    *,
    reasoning: str | None = None,
    text: str | None = None,
    tool_calls: Sequence[ToolCallSpec] = (),
    finish_reason: str | None = None,
    usage: dict[str, Any] | None = None,  # Any: free-form wire usage object
    usage_in_trailing_chunk: bool = False,
    piece_size: int = 4,
    fragment_size: int = 3,
    interleave_tool_calls: bool = False,
    done: bool = True,
    chunk_delay: float = 0.0,
) -> StreamResponse:
    """A whole streamed answer; ``finish_reason`` defaults to ``tool_calls`` or ``stop``.

    ``chunk_delay`` > 0 pauses that many seconds after every event (each then arrives in its
    own write).
    """
    steps: list[Step] = []
    if reasoning is not None:
        opening = {"role": "assistant", "content": None, "reasoning_content": ""}
        steps.append(Event(data=delta_payload(opening)))
        for piece in _pieces(reasoning, piece_size):
            delta = {"content": None, "reasoning_content": piece}
            steps.append(Event(data=delta_payload(delta)))
    if text is not None:
        for piece in _pieces(text, piece_size):
            steps.append(Event(data=delta_payload({"content": piece})))
    steps.extend(
        tool_call_events(tool_calls, fragment_size=fragment_size, interleave=interleave_tool_calls)
    )
    reason = finish_reason or ("tool_calls" if tool_calls else "stop")
    if usage_in_trailing_chunk or usage is None:
        steps.append(Event(data=delta_payload({}, finish_reason=reason)))
        if usage is not None:
            steps.append(Event(data=usage_payload(usage)))
    else:
        steps.append(Event(data=delta_payload({"content": ""}, finish_reason=reason, usage=usage)))
    if done:
        steps.append(DONE)
    if chunk_delay > 0:
        steps = [paced for step in steps for paced in (step, Delay(seconds=chunk_delay))]
    return StreamResponse(steps=tuple(steps))


def error(status: int, message: str, *, retry_after: str | None = None) -> ErrorResponse:
    """An OpenAI-style JSON error response, with ``Retry-After`` when given."""
    body = _dumps({"error": {"message": message, "type": "scripted_error", "code": None}})
    headers = {} if retry_after is None else {"Retry-After": retry_after}
    return ErrorResponse(status=status, body=body, headers=headers)
