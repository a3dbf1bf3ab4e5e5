"""LlmRequest → chat-completions request body (llm.deepseek layer).

Pure. The body is always streaming with usage reporting on; optional fields are omitted, not
sent as null, so provider defaults apply. Message mapping:

* ``request.system`` becomes the first ``system`` message; system messages send their text;
* a user message sends its tool results first, each as a ``tool`` message whose content is the
  result's text or ``(no output)`` (the wire has no error flag, so a failed result whose text
  does not already say so is prefixed ``Error: ``), then its text if it has any (or if it had
  no tool results at all);
* an assistant message sends its text as ``content`` — ``""`` when there is none, never null,
  which the API would reject forever from a session's history — its tool calls (empty
  arguments become ``{}``), and ``reasoning_content`` only on tool-call turns that carry
  reasoning: thinking mode needs it there and ignores it elsewhere;
* text joins without separators; plugin block kinds are not sent.

The JSON is compact UTF-8; ``NaN`` or ``Infinity`` anywhere is an ``INVALID_REQUEST``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Literal, assert_never

from dsh_lsp.llm.blocks import (
    ContentBlock,
    ExtensionBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from dsh_lsp.llm.errors import LlmCode, LlmError
from dsh_lsp.llm.json_value import JsonValue, dumps_compact
from dsh_lsp.llm.message import Message
from dsh_lsp.llm.request import LlmRequest

_log = logging.getLogger(__name__)

NO_OUTPUT = "(no output)"
"""The content sent for a tool result without text; the API rejects an empty one."""

Thinking = Literal["enabled", "disabled"]
ReasoningEffort = Literal["low", "medium", "high", "max"]


def _text(blocks: Iterable[ContentBlock]) -> str:
    return "".join(block.text for block in blocks if isinstance(block, TextBlock))


def _tool_message(result: ToolResultBlock) -> dict[str, JsonValue]:
    text = _text(result.content)
    if result.is_error and not text.startswith("Error"):
        text = f"Error: {text}" if text else "Error: (no output)"
    return {"role": "tool", "tool_call_id": result.tool_call_id, "content": text or NO_OUTPUT}


def _assistant_message(message: Message) -> dict[str, JsonValue]:
    texts: list[str] = []
    reasoning: list[str] = []
    calls: list[JsonValue] = []
    for block in message.content:
        match block:
            case TextBlock(text=text):
                texts.append(text)
            case ReasoningBlock(text=text):
                reasoning.append(text)
            case ToolCallBlock(id=call_id, name=name, arguments=arguments):
                function = {"name": name, "arguments": arguments or "{}"}
                calls.append({"id": call_id, "type": "function", "function": function})
            case ToolResultBlock() | ExtensionBlock():
                _log.debug("not sending %s block in an assistant message", block.kind)
            case _:
                assert_never(block)
    wire: dict[str, JsonValue] = {"role": "assistant", "content": "".join(texts)}
    if calls:
        joined = "".join(reasoning)
        if joined:
            wire["reasoning_content"] = joined
        wire["tool_calls"] = calls
    return wire


def wire_messages(request: LlmRequest) -> list[JsonValue]:
    """The ``messages`` array for ``request`` (system prompt first)."""
    wire: list[JsonValue] = []
    if request.system:
        wire.append({"role": "system", "content": request.system})
    for message in request.messages:
        match message.role:
            case "system":
                wire.append({"role": "system", "content": _text(message.content)})
            case "assistant":
                wire.append(_assistant_message(message))
            case "user":
                results = [b for b in message.content if isinstance(b, ToolResultBlock)]
                wire.extend(_tool_message(result) for result in results)
                text = _text(message.content)
                if text or not results:
                    wire.append({"role": "user", "content": text})
            case _:
                assert_never(message.role)
    return wire


def serialize_request(
    request: LlmRequest,
    *,
    thinking: Thinking | None = None,
    reasoning_effort: ReasoningEffort | None = None,
) -> bytes:
    """The UTF-8 JSON body of a streaming chat-completions call for ``request``.

    ``thinking`` and ``reasoning_effort`` come from the adapter's configuration and are sent
    only when set. Raises ``LlmError`` (``INVALID_REQUEST``) when the body cannot be JSON
    (``NaN``/``Infinity`` in a number, a non-JSON value in a tool schema).
    """
    body: dict[str, JsonValue] = {
        "model": request.model,
        "messages": wire_messages(request),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if thinking is not None:
        body["thinking"] = {"type": thinking}
    if reasoning_effort is not None:
        body["reasoning_effort"] = reasoning_effort
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                },
            }
            for tool in request.tools
        ]
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.stop is not None:
        body["stop"] = list(request.stop)
    try:
        return dumps_compact(body).encode("utf-8")
    except (ValueError, TypeError) as exc:
        raise LlmError(
            f"the request cannot be encoded as JSON: {exc}", code=LlmCode.INVALID_REQUEST, cause=exc
        ) from exc
