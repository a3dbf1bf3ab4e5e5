"""The core session event types and builders for their data (session layer).

Each constant names one event type; each ``*_data`` builder returns the event's ``data``
object in its persisted shape (camelCase keys, absent optionals omitted), built with the
model layer's record codecs. Plugins log their own types (``compact/summary``, ``todo/write``)
with any ``namespace/name`` string; only the five ``SURFACE_EVENT_TYPES`` may, and must,
carry a ``surface_op``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal, Protocol

from dsh_lsp.llm import (
    CallId,
    ContentBlock,
    JsonObject,
    JsonValue,
    MessageSource,
    StreamChunk,
    TokenUsage,
    block_to_json,
    chunk_to_json,
    source_to_json,
    usage_to_json,
)

TURN_START: Final = "turn/start"
TURN_END: Final = "turn/end"
STEP_START: Final = "step/start"
STEP_END: Final = "step/end"
USER_MESSAGE: Final = "user/message"
PROMPT_BLOCKED: Final = "prompt/blocked"
ASSISTANT_CHUNK: Final = "assistant/chunk"
ASSISTANT_MESSAGE: Final = "assistant/message"
TOOL_CALL: Final = "tool/call"
TOOL_RESULT: Final = "tool/result"
CONTEXT_MESSAGE: Final = "context/message"
STEERING_MESSAGE: Final = "steering/message"

SURFACE_EVENT_TYPES: Final = frozenset(
    {USER_MESSAGE, ASSISTANT_MESSAGE, TOOL_RESULT, CONTEXT_MESSAGE, STEERING_MESSAGE}
)
"""The types that form the model-visible surface; exactly these carry a ``surface_op``."""

CORE_EVENT_TYPES: Final = frozenset(
    {TURN_START, TURN_END, STEP_START, STEP_END, PROMPT_BLOCKED, ASSISTANT_CHUNK, TOOL_CALL}
    | SURFACE_EVENT_TYPES
)
"""Every type this module defines."""

TurnEndKind = Literal[
    "completed",
    "aborted",
    "error",
    "disposed",
    "max-tokens",
    "max-steps",
    "rejected",
    "interrupted",
]
"""Why a turn ended (``interrupted`` is written only by crash repair)."""

INTERRUPTED_RESULT_TEXT: Final = "Tool call interrupted before it produced a result."
"""The text of the error result crash repair records for an unanswered tool call."""


class ErrorInfo(Protocol):
    """The error classification of a failed tool result (the tools layer's ``ToolErrorInfo``)."""

    @property
    def name(self) -> str: ...
    @property
    def code(self) -> str: ...


def blocks_json(content: Sequence[ContentBlock]) -> list[JsonValue]:
    """The records of ``content``, in order."""
    return [block_to_json(block) for block in content]


def message_trigger(source: MessageSource) -> dict[str, JsonValue]:
    """A turn started by queued messages; ``source`` is the first message's source."""
    return {"kind": "message", "source": source_to_json(source)}


def injection_trigger() -> dict[str, JsonValue]:
    """A one-turn wrapper around context injected while the agent was idle."""
    return {"kind": "injection"}


def turn_start_data(turn: int, trigger: JsonObject) -> dict[str, JsonValue]:
    """``turn/start {turn, trigger}``."""
    return {"turn": turn, "trigger": dict(trigger)}


def end_reason(
    kind: TurnEndKind,
    *,
    reason: str | None = None,
    step: int | None = None,
    message: str | None = None,
    code: str | None = None,
) -> dict[str, JsonValue]:
    """A turn-end reason record: ``{kind, ...}``.

    ``aborted`` takes an optional ``reason``; ``error`` requires ``step`` and ``message``
    (``code`` optional); ``rejected`` requires ``reason``. Raises ``ValueError`` when a
    required field is missing or a field is given to a kind that has none.
    """
    record: dict[str, JsonValue] = {"kind": kind}
    match kind:
        case "aborted" | "rejected":
            if step is not None or message is not None or code is not None:
                raise ValueError(f"{kind} reasons carry only 'reason'")
            if reason is not None:
                record["reason"] = reason
            elif kind == "rejected":
                raise ValueError("a rejected turn needs a reason")
        case "error":
            if step is None or message is None or reason is not None:
                raise ValueError("an error reason needs step and message (and no reason)")
            record["step"] = step
            record["message"] = message
            if code is not None:
                record["code"] = code
        case _:
            if reason is not None or step is not None or message is not None or code is not None:
                raise ValueError(f"{kind} reasons carry no fields")
    return record


def turn_end_data(turn: int, reason: JsonObject) -> dict[str, JsonValue]:
    """``turn/end {turn, reason}`` (build ``reason`` with ``end_reason``)."""
    return {"turn": turn, "reason": dict(reason)}


def step_start_data(turn: int, step: int) -> dict[str, JsonValue]:
    """``step/start {turn, step}``."""
    return {"turn": turn, "step": step}


def step_end_data(turn: int, step: int) -> dict[str, JsonValue]:
    """``step/end {turn, step}``."""
    return {"turn": turn, "step": step}


def user_message_data(
    content: Sequence[ContentBlock], source: MessageSource
) -> dict[str, JsonValue]:
    """``user/message {content, source}`` (surface)."""
    return {"content": blocks_json(content), "source": source_to_json(source)}


def prompt_blocked_data(
    content: Sequence[ContentBlock], source: MessageSource, reason: str
) -> dict[str, JsonValue]:
    """``prompt/blocked {content, source, reason}``: a message a prompt-submit hook refused."""
    return {"content": blocks_json(content), "source": source_to_json(source), "reason": reason}


def assistant_chunk_data(turn: int, step: int, chunk: StreamChunk) -> dict[str, JsonValue]:
    """``assistant/chunk {turn, step, chunk}``: one streamed chunk, as received."""
    return {"turn": turn, "step": step, "chunk": chunk_to_json(chunk)}


def assistant_message_data(
    turn: int, step: int, content: Sequence[ContentBlock], usage: TokenUsage | None = None
) -> dict[str, JsonValue]:
    """``assistant/message {turn, step, content, usage?}`` (surface)."""
    record: dict[str, JsonValue] = {"turn": turn, "step": step, "content": blocks_json(content)}
    if usage is not None:
        record["usage"] = usage_to_json(usage)
    return record


def tool_call_data(
    turn: int, step: int, call_id: CallId, name: str, arguments: str
) -> dict[str, JsonValue]:
    """``tool/call {turn, step, callId, name, arguments}``; ``arguments`` is the raw JSON text."""
    return {"turn": turn, "step": step, "callId": call_id, "name": name, "arguments": arguments}


def tool_result_data(
    turn: int,
    step: int,
    call_id: CallId,
    content: Sequence[ContentBlock],
    *,
    is_error: bool = False,
    error: ErrorInfo | None = None,
    meta: JsonObject | None = None,
) -> dict[str, JsonValue]:
    """``tool/result {turn, step, callId, content, isError, error?, meta?}`` (surface).

    ``call_id`` is the model's id of the call this result answers.
    """
    record: dict[str, JsonValue] = {
        "turn": turn,
        "step": step,
        "callId": call_id,
        "content": blocks_json(content),
        "isError": is_error,
    }
    if error is not None:
        record["error"] = {"name": error.name, "code": error.code}
    if meta is not None:
        record["meta"] = dict(meta)
    return record


def context_message_data(
    content: Sequence[ContentBlock], source: MessageSource
) -> dict[str, JsonValue]:
    """``context/message {content, source}`` (surface): durable context, rendered in an envelope."""
    return {"content": blocks_json(content), "source": source_to_json(source)}


def steering_message_data(
    turn: int, content: Sequence[ContentBlock], source: MessageSource
) -> dict[str, JsonValue]:
    """``steering/message {turn, content, source}`` (surface): a message sent mid-turn."""
    return {"turn": turn, "content": blocks_json(content), "source": source_to_json(source)}
