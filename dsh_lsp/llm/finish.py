"""Finish reasons: why a model call's stream ended (llm layer).

``FinishReason`` is a closed union; consumers ``match`` it exhaustively. A failed call either
raises ``LlmError`` from the stream or ends with ``FinishError``; consumers handle both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal


@dataclass(frozen=True, slots=True, kw_only=True)
class FinishStop:
    """The model ended its answer."""

    kind: ClassVar[Literal["stop"]] = "stop"


@dataclass(frozen=True, slots=True, kw_only=True)
class FinishToolCalls:
    """The model stopped to have its tool calls run."""

    kind: ClassVar[Literal["tool-calls"]] = "tool-calls"


@dataclass(frozen=True, slots=True, kw_only=True)
class FinishMaxTokens:
    """The output budget ran out; any tool-call arguments may be truncated."""

    kind: ClassVar[Literal["max-tokens"]] = "max-tokens"


@dataclass(frozen=True, slots=True, kw_only=True)
class FinishAborted:
    """The call was cancelled before the model finished."""

    kind: ClassVar[Literal["aborted"]] = "aborted"


@dataclass(frozen=True, slots=True, kw_only=True)
class FinishError:
    """The provider ended the stream with a failure it reported in-band."""

    kind: ClassVar[Literal["error"]] = "error"
    message: str
    code: str | None = None
    """A stable code such as ``CONTENT_FILTER``, when the provider gave a reason."""


FinishReason = FinishStop | FinishToolCalls | FinishMaxTokens | FinishAborted | FinishError
"""Why a stream ended."""
