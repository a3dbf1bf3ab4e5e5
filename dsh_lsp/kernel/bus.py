"""EventBus: listener lists per event and the five dispatchers (kernel layer).

Each event's listeners are held as an immutable tuple that is replaced on every change, so a
dispatch iterates the snapshot taken when it started: a listener added meanwhile is not
called, one removed meanwhile still is. Order is registration order; ``prepend`` puts a
listener first. Errors propagate (to the dispatching caller) unless the dispatcher says
otherwise; the bus never wraps them.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import anyio

from .effects import describe
from .errors import ListenerError, WaterfallMisuseError
from .events import (
    AnyEvent,
    EmitEvent,
    ParallelEvent,
    SerialEvent,
    StreamWaterfallEvent,
    WaterfallEvent,
)

logger = logging.getLogger(__name__)

P = TypeVar("P")
R = TypeVar("R")
Y = TypeVar("Y")


class _Listener:
    __slots__ = ("fn", "owner")

    def __init__(self, fn: Callable[..., Any], owner: str) -> None:
        # Any: listeners of every mode share this slot; the bus calls them per mode.
        self.fn = fn
        self.owner = owner


class _Next:
    """The ``next`` handed to the listener at ``index - 1``; bound to its position."""

    __slots__ = ("_chain", "_event", "_index", "_inner", "_once", "_payload", "_used")

    def __init__(
        self,
        chain: tuple[_Listener, ...],
        index: int,
        payload: object,
        inner: Callable[[], Any],
        event: AnyEvent,
        once: bool,
    ) -> None:
        # Any: ``inner`` returns an awaitable or an async iterator, depending on the mode.
        self._chain = chain
        self._index = index
        self._payload = payload
        self._inner = inner
        self._event = event
        self._once = once
        self._used = False

    def __call__(self) -> Any:
        # Any: an awaitable (waterfall) or an async iterator (stream waterfall).
        if self._once:
            if self._used:
                owner = self._chain[self._index - 1].owner
                raise WaterfallMisuseError(
                    f"a listener of {self._event.name!r} registered by {owner} called next()"
                    " twice; call it at most once"
                )
            self._used = True
        chain = self._chain
        index = self._index
        if index == len(chain):
            return self._inner()
        follower = _Next(chain, index + 1, self._payload, self._inner, self._event, self._once)
        return chain[index].fn(self._payload, follower)


class EventBus:
    """Listener lists keyed by event declaration, plus one dispatcher per mode."""

    __slots__ = ("_lists",)

    def __init__(self) -> None:
        self._lists: dict[AnyEvent, tuple[_Listener, ...]] = {}

    def add(
        self, event: AnyEvent, fn: Callable[..., Any], *, owner: str, prepend: bool = False
    ) -> Callable[[], None]:
        """Register ``fn``; returns the function that removes exactly this registration.

        ``fn`` is typed loosely (Any) because one bus serves every mode; ``Context.on``'s
        overloads do the typing.

        Raises ListenerError when ``fn`` is a coroutine or async-generator function and
        ``event`` is an ``EmitEvent``.
        """
        if isinstance(event, EmitEvent) and _is_async(fn):
            raise ListenerError(
                f"emit event {event.name!r} takes synchronous listeners only; {owner} tried"
                f" to register the coroutine function {describe(fn)}"
            )
        entry = _Listener(fn, owner)
        current = self._lists.get(event, ())
        self._lists[event] = (entry, *current) if prepend else (*current, entry)

        def remove() -> None:
            rest = tuple(e for e in self._lists.get(event, ()) if e is not entry)
            if rest:
                self._lists[event] = rest
            else:
                self._lists.pop(event, None)

        return remove

    def count(self, event: AnyEvent) -> int:
        """How many listeners ``event`` has right now."""
        return len(self._lists.get(event, ()))

    def emit(self, event: EmitEvent[P], payload: P) -> None:
        """Call each listener in order, ignoring return values. The first listener error
        propagates and later listeners are skipped. Raises ListenerError if a listener returned
        an awaitable (it is closed, never awaited)."""
        for entry in self._lists.get(event, ()):
            result = entry.fn(payload)
            if result is not None and inspect.isawaitable(result):
                _reject_awaitable(event, entry, result)

    def emit_contained(self, event: EmitEvent[P], payload: P) -> None:
        """Call each listener in order; a listener error is logged and the next one runs."""
        for entry in self._lists.get(event, ()):
            try:
                result = entry.fn(payload)
                if result is not None and inspect.isawaitable(result):
                    _reject_awaitable(event, entry, result)
            except Exception:
                logger.exception(
                    "listener of %r registered by %s failed; dispatch goes on",
                    event.name,
                    entry.owner,
                )

    async def waterfall(
        self, event: WaterfallEvent[P, R], payload: P, inner: Callable[[], Awaitable[R]]
    ) -> R:
        """Run the around-middleware chain with ``inner`` innermost; return its result.

        Raises whatever a listener or ``inner`` raises, and WaterfallMisuseError when a
        listener calls ``next()`` twice.
        """
        chain = self._lists.get(event, ())
        if not chain:
            return await inner()
        result: R = await _Next(chain, 0, payload, inner, event, True)()
        return result

    def stream_waterfall(
        self,
        event: StreamWaterfallEvent[P, Y],
        payload: P,
        inner: Callable[[], AsyncIterator[Y]],
    ) -> AsyncIterator[Y]:
        """The outermost listener's stream (or ``inner()`` without listeners).

        Nothing runs until the returned iterator is iterated; errors surface from iteration.
        """
        chain = self._lists.get(event, ())
        if not chain:
            return inner()
        stream: AsyncIterator[Y] = _Next(chain, 0, payload, inner, event, False)()
        return stream

    async def serial(self, event: SerialEvent[P, R], payload: P) -> R | None:
        """Await listeners in order; return the first result that is not None (the rest are
        skipped), or None. A listener error propagates and skips the rest."""
        for entry in self._lists.get(event, ()):
            result: R | None = await entry.fn(payload)
            if result is not None:
                return result
        return None

    async def parallel(self, event: ParallelEvent[P], payload: P) -> None:
        """Run every listener concurrently until all have finished, then raise the first
        failure (in time order), if any; later failures are logged. A failing listener never
        cancels the others; cancelling the caller cancels them all."""
        chain = self._lists.get(event, ())
        if not chain:
            return
        errors: list[Exception] = []

        async def run(entry: _Listener) -> None:
            try:
                await entry.fn(payload)
            except Exception as exc:
                errors.append(exc)

        async with anyio.create_task_group() as tg:
            for entry in chain:
                tg.start_soon(run, entry)
        for extra in errors[1:]:
            logger.error("parallel listener of %r also failed", event.name, exc_info=extra)
        if errors:
            raise errors[0]


def _is_async(fn: object) -> bool:
    call = inspect.getattr_static(type(fn), "__call__", None)
    return any(inspect.iscoroutinefunction(f) or inspect.isasyncgenfunction(f) for f in (fn, call))


def _reject_awaitable(event: EmitEvent[Any], entry: _Listener, result: object) -> None:
    # Any: the payload type does not matter for the message.
    if inspect.iscoroutine(result):
        result.close()
    raise ListenerError(
        f"a listener of emit event {event.name!r} registered by {entry.owner} returned an"
        " awaitable; emit listeners are synchronous"
    )
