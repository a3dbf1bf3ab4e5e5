"""Finish reasons: why a model call's stream ended (llm layer).

``FinishReason`` is an open vocabulary (see ``vocabulary``): five core kinds, plus plugin kinds
that subclass ``ExtensionFinish`` and register with ``FINISH_REASONS`` (an adapter for a
provider with its own stop reasons, say); an unregistered kind decodes to an
``OpaqueFinish``. Consumers ``match`` the core kinds and end in ``case ExtensionFinish():``,
the documented default: a plugin finish ends the step like ``stop`` (the loop does not
continue on it). A failed call either raises ``LlmError`` from the stream or ends with
``FinishError``; consumers handle both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final, Literal

from .vocabulary import Extension, Opaque, Vocabulary


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


class ExtensionFinish(Extension):
    """Base of every plugin-defined finish reason kind (record tag ``type``)."""

    __slots__ = ()


class OpaqueFinish(Opaque, ExtensionFinish):
    """A finish reason of a kind no loaded plugin registered: its record (tag ``type``)."""

    __slots__ = ()


FinishReason = (
    FinishStop | FinishToolCalls | FinishMaxTokens | FinishAborted | FinishError | ExtensionFinish
)
"""Why a stream ended: a core kind, or a plugin kind."""

FINISH_REASONS: Final = Vocabulary[ExtensionFinish](
    "finish reason",
    ("stop", "tool-calls", "max-tokens", "aborted", "error"),
    OpaqueFinish,
)
"""Plugin finish reason kinds: ``ctx.effect(lambda: FINISH_REASONS.register(cls))``."""
