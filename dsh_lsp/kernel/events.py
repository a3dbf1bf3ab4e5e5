"""Typed event declarations, one class per dispatch mode, and their listener shapes (kernel).

An event is declared once, next to the package that owns it, as a module constant whose type
parameters fix the payload (and result) type, so a type checker rejects a wrong listener::

    AGENT_STATUS: EmitEvent[StatusChange] = EmitEvent("agent/status")
    AGENT_REQUEST: WaterfallEvent[RequestPayload, LlmRequest] = WaterfallEvent("agent/request")

The mode is the class. Events are compared by identity: two declarations with the same name
are two different events. Every listener takes a single payload object.

=========================  =====================================================  ============
class                      listener                                               dispatcher
=========================  =====================================================  ============
``EmitEvent[P]``           ``def (p: P) -> None``                                 ``emit``
``WaterfallEvent[P, R]``   ``async def (p: P, next: () -> Awaitable[R]) -> R``    ``waterfall``
``StreamWaterfallEvent``   ``def (p: P, next: () -> AsyncIterator[Y])``           ``stream_``
``[P, Y]``                 ``-> AsyncIterator[Y]`` (an async generator)           ``waterfall``
``SerialEvent[P, R]``      ``async def (p: P) -> R | None``                       ``serial``
``ParallelEvent[P]``       ``async def (p: P) -> None``                           ``parallel``
=========================  =====================================================  ============
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeAlias, TypeVar

P = TypeVar("P")
R = TypeVar("R")
Y = TypeVar("Y")

EmitListener: TypeAlias = Callable[[P], None]
WaterfallNext: TypeAlias = Callable[[], Awaitable[R]]
WaterfallListener: TypeAlias = Callable[[P, WaterfallNext[R]], Awaitable[R]]
StreamNext: TypeAlias = Callable[[], AsyncIterator[Y]]
StreamListener: TypeAlias = Callable[[P, StreamNext[Y]], AsyncIterator[Y]]
SerialListener: TypeAlias = Callable[[P], Awaitable[R | None]]
ParallelListener: TypeAlias = Callable[[P], Awaitable[None]]


@dataclass(frozen=True, slots=True, eq=False)
class EmitEvent(Generic[P]):
    """Synchronous notification: every listener is called in order, return values ignored.

    Coroutine listeners are rejected when registered. A raising listener propagates out of
    ``emit`` and skips the rest; ``emit_contained`` logs it and goes on.
    """

    name: str


@dataclass(frozen=True, slots=True, eq=False)
class WaterfallEvent(Generic[P, R]):
    """Async around-middleware: each listener gets the payload and ``next()``.

    ``await next()`` runs the following listeners (the last ``next()`` runs the dispatcher's
    ``inner``) and returns their result; a listener may call it at most once. Returning
    without calling it short-circuits (a veto or takeover); its return value is the result.
    """

    name: str


@dataclass(frozen=True, slots=True, eq=False)
class StreamWaterfallEvent(Generic[P, Y]):
    """Around-middleware over a stream: ``next()`` returns the downstream async iterator.

    A listener returns an async iterator (usually it is an async generator) that wraps,
    transforms, replays or replaces the downstream stream. Calling ``next()`` again opens the
    downstream afresh (that is how a retry listener retries); nothing downstream runs until
    the returned iterator is iterated.
    """

    name: str


@dataclass(frozen=True, slots=True, eq=False)
class SerialEvent(Generic[P, R]):
    """Awaited in order; the first listener returning something other than None wins."""

    name: str


@dataclass(frozen=True, slots=True, eq=False)
class ParallelEvent(Generic[P]):
    """All listeners run concurrently to completion; then the first failure is raised.

    One failing listener never cancels the others.
    """

    name: str


# Any: the bus stores listeners of every payload type side by side; the typed context
# methods are what tie a listener to its event's payload and result types.
AnyEvent: TypeAlias = (
    EmitEvent[Any]
    | WaterfallEvent[Any, Any]
    | StreamWaterfallEvent[Any, Any]
    | SerialEvent[Any, Any]
    | ParallelEvent[Any]
)
"""Any event declaration, whatever its mode."""
