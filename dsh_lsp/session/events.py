"""The core session event types (session layer).

Each constant names one event type; ``payloads`` holds the typed data of each and the
``*_data`` builders of its JSON form. Plugins log their own types (``compact/summary``,
``todo/write``) with any ``namespace/name`` string; only the five ``SURFACE_EVENT_TYPES`` may,
and must, carry a ``surface_op``.
"""

from __future__ import annotations

from typing import Final, Protocol

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

INTERRUPTED_RESULT_TEXT: Final = "Tool call interrupted before it produced a result."
"""The text of the error result crash repair records for an unanswered tool call."""


class ErrorInfo(Protocol):
    """The error classification of a failed tool result (the tools layer's ``ToolErrorInfo``)."""

    @property
    def name(self) -> str: ...
    @property
    def code(self) -> str: ...
