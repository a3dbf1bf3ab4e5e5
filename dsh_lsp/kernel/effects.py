"""Effect bodies: run one, collect its disposers, and unwind them LIFO (kernel layer).

An effect body is a zero-argument callable that does some registering and hands back how to
undo it, in one of these shapes:

- returns one disposer (a zero-argument callable, sync or returning an awaitable);
- is a generator (sync, or async for ``aeffect``) yielding one disposer per step. Each yielded
  disposer is collected before the next step runs, so when a later step raises, the steps
  already taken are rolled back newest first and then the error propagates;
- (``aeffect`` only) is a coroutine function returning one disposer.

The collected disposers of one effect run newest first, sequentially, each awaited. A failing
disposer does not stop the others; the first error is raised once all have run.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import TypeAlias

import anyio

from .errors import EffectError

logger = logging.getLogger(__name__)

Teardown: TypeAlias = Callable[[], object]
"""Undoes one step: a sync callable, or one returning an awaitable."""

EffectBody: TypeAlias = Callable[[], Teardown | Iterator[Teardown]]
"""What ``ctx.effect`` accepts: returns a teardown, or is a generator yielding teardowns."""

AsyncEffectBody: TypeAlias = Callable[
    [], Teardown | Iterator[Teardown] | Awaitable[Teardown] | AsyncIterator[Teardown]
]
"""What ``ctx.aeffect`` accepts: any ``EffectBody``, a coroutine, or an async generator."""

Defer = Callable[[Awaitable[object]], None]
"""Hands an awaitable a synchronous rollback cannot await to a shielded background task."""


def run_effect(body: EffectBody, *, defer: Defer) -> list[Teardown]:
    """Run a synchronous effect body; return its teardowns in registration order.

    A generator step that raises rolls back the collected teardowns newest first (a teardown
    returning an awaitable is finished by ``defer``), then the error propagates.
    Raises EffectError for coroutine or async-generator bodies (use ``aeffect``) and for
    anything yielded or returned that is not callable.
    """
    if inspect.iscoroutinefunction(body) or inspect.isasyncgenfunction(body):
        raise EffectError(f"{describe(body)} is async; register it with `await ctx.aeffect(...)`")
    result = body()
    if inspect.isgenerator(result):
        return _collect(result, defer)
    if inspect.iscoroutine(result):
        result.close()
    if inspect.isawaitable(result) or inspect.isasyncgen(result):
        raise EffectError(f"{describe(body)} returned an awaitable; use `await ctx.aeffect(...)`")
    return [_teardown(result, body)]


async def arun_effect(body: AsyncEffectBody) -> list[Teardown]:
    """Run any effect body; return its teardowns in registration order.

    A generator step that raises (or is cancelled) rolls back the collected teardowns newest
    first, sequentially and shielded, then the error propagates.
    Raises EffectError for anything yielded or returned that is not callable.
    """
    result = body()
    if inspect.isasyncgen(result):
        return await _acollect(result)
    if inspect.isgenerator(result):
        return await _acollect(_aiter(result))
    if inspect.isawaitable(result):
        result = await result
    return [_teardown(result, body)]


async def unwind(teardowns: Sequence[Teardown], *, contain: bool = False) -> None:
    """Run ``teardowns`` newest first, one at a time, each awaited.

    Every teardown runs even when one fails. With ``contain`` every failure is logged;
    without, the first failure is raised after the rest ran (later ones are logged).
    """
    first: Exception | None = None
    for teardown in reversed(teardowns):
        try:
            outcome = teardown()
            if inspect.isawaitable(outcome):
                await outcome
        except Exception as exc:
            if contain or first is not None:
                logger.exception("effect teardown %s failed", describe(teardown))
            else:
                first = exc
    if first is not None:
        raise first


def _collect(steps: Iterator[object], defer: Defer) -> list[Teardown]:
    collected: list[Teardown] = []
    try:
        for item in steps:
            collected.append(_teardown(item, steps))
    except BaseException:
        if inspect.isgenerator(steps):
            steps.close()
        for teardown in reversed(collected):
            try:
                outcome = teardown()
                if inspect.isawaitable(outcome):
                    defer(outcome)
            except Exception:
                logger.exception("effect rollback %s failed", describe(teardown))
        raise
    return collected


async def _acollect(steps: AsyncIterator[object]) -> list[Teardown]:
    collected: list[Teardown] = []
    try:
        async for item in steps:
            collected.append(_teardown(item, steps))
    except BaseException:
        with anyio.CancelScope(shield=True):
            if inspect.isasyncgen(steps):
                await steps.aclose()
            await unwind(collected, contain=True)
        raise
    return collected


async def _aiter(steps: Iterator[object]) -> AsyncIterator[object]:
    # Adapts a sync generator so aeffect can roll it back with awaited teardowns.
    try:
        for item in steps:
            yield item
    finally:
        if inspect.isgenerator(steps):
            steps.close()


def _teardown(value: object, source: object) -> Teardown:
    if not callable(value):
        raise EffectError(
            f"effect {describe(source)} produced {type(value).__name__!r}; expected a disposer"
            " (a zero-argument callable)"
        )
    return value


def describe(obj: object) -> str:
    """A short name for a callable or object, for messages and logs."""
    return str(getattr(obj, "__qualname__", None) or type(obj).__name__)
