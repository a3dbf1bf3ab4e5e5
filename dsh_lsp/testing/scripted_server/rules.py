"""Request checks the scripted server can enforce, as a real provider would (testing kit).

``deepseek_thinking`` answers the way DeepSeek's API does when a thinking-mode history breaks
its rule: between two ``user`` messages, once the model called a tool, every assistant message
of that stretch must carry ``reasoning_content`` (a string, ``""`` allowed) in all later
requests. Thinking mode is on unless the request sends ``thinking: {"type": "disabled"}`` or
names ``deepseek-chat`` without enabling it. The answer is the 400 body DeepSeek sends
(recorded in ``tests/llm/fixtures/wire/deepseek-400-reasoning-passback``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Final

from dsh_lsp.testing.script import ErrorResponse, ScriptedResponse

from .state import RecordedRequest

RequestCheck = Callable[[RecordedRequest], ScriptedResponse | None]
"""Looks at a request before the script answers it; a response returned is sent instead."""

REASONING_PASSBACK_400: Final = ErrorResponse(
    status=400,
    body=(
        '{"error":{"message":"The reasoning_content in the thinking mode must be passed back'
        ' to the API.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}'
    ),
)
"""DeepSeek's answer to a thinking-mode history without the reasoning it needs."""


def _thinking_on(body: dict[str, object]) -> bool:
    thinking = body.get("thinking")
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    if kind == "disabled":
        return False
    return kind == "enabled" or "deepseek-chat" not in str(body.get("model", ""))


def thinking_history_violation(body: object) -> str | None:
    """Why a request body breaks DeepSeek's thinking-mode history rule, or ``None``."""
    if not isinstance(body, dict) or not _thinking_on(body):
        return None
    messages = body.get("messages")
    if not isinstance(messages, list):
        return None
    stretch: list[tuple[int, dict[str, object]]] = []
    for position, message in enumerate([*messages, {"role": "user"}]):
        if not isinstance(message, dict):
            continue
        if message.get("role") == "user":
            if any(m.get("tool_calls") for _, m in stretch):
                for index, assistant in stretch:
                    if not isinstance(assistant.get("reasoning_content"), str):
                        return f"messages[{index}]: assistant message without reasoning_content"
            stretch = []
        elif message.get("role") == "assistant":
            stretch.append((position, message))
    return None


def deepseek_thinking(request: RecordedRequest) -> ScriptedResponse | None:
    """The ``RequestCheck`` for DeepSeek's rule: the recorded 400 when the history breaks it."""
    try:
        body = json.loads(request.body)
    except ValueError:
        return None
    return None if thinking_history_violation(body) is None else REASONING_PASSBACK_400


CHECKS: Final[dict[str, RequestCheck]] = {"deepseek-thinking": deepseek_thinking}
"""The checks by name (``--check`` of ``python -m dsh_lsp.testing.scripted_server``)."""
