"""Context: what a plugin (or the kernel's owner) registers and dispatches through (kernel).

A context is bound to one scope: the kernel's root scope, or one activation of a fiber.
Everything registered through it — services, listeners, effects, child plugins, background
tasks — is owned by that scope and undone, newest first, when it closes. Registering through
a closed context raises KernelClosedError. Dispatching works through any context.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar, TypeVarTuple, cast, overload

import anyio

from .disposer import Disposer
from .effects import AsyncEffectBody, EffectBody, arun_effect, describe, run_effect, unwind
from .errors import ServiceMissingError
from .events import (
    AnyEvent,
    EmitEvent,
    EmitListener,
    ParallelEvent,
    ParallelListener,
    SerialEvent,
    SerialListener,
    StreamListener,
    StreamWaterfallEvent,
    WaterfallEvent,
    WaterfallListener,
)
from .plugin import Plugin
from .scope import Scope
from .services import ServiceKey

if TYPE_CHECKING:
    from .fiber import Fiber
    from .kernel import Kernel
    from .runtime import Runtime

T = TypeVar("T")
C = TypeVar("C")
P = TypeVar("P")
R = TypeVar("R")
Y = TypeVar("Y")
Ts = TypeVarTuple("Ts")


class Context:
    """The registration and dispatch surface of one owner (root, or one fiber activation)."""

    __slots__ = ("_bus", "_fiber", "_runtime", "_scope")

    def __init__(self, runtime: Runtime, scope: Scope, fiber: Fiber | None) -> None:
        self._runtime = runtime
        self._bus = runtime.bus
        self._scope = scope
        self._fiber = fiber

    def __repr__(self) -> str:
        return f"<Context of {self._scope.owner}>"

    @property
    def kernel(self) -> Kernel:
        """The kernel this context belongs to (introspection: listener_count, service_keys…)."""
        return self._runtime.kernel

    @property
    def fiber(self) -> Fiber | None:
        """The fiber whose activation this context serves; None for the root context."""
        return self._fiber

    @property
    def owner(self) -> str:
        """How errors and logs name this context's owner (e.g. ``plugin 'llm'``)."""
        return self._scope.owner

    @property
    def closed(self) -> bool:
        """True once this context's scope is closed (its fiber unloaded or the kernel shut)."""
        return self._scope.closed

    # -- services ----------------------------------------------------------------------------

    def provide(self, key: ServiceKey[T], value: T) -> Disposer:
        """Provide ``value`` under ``key``, owned by this context.

        Pending fibers injecting ``key`` activate soon after (in kernel tasks). Disposing the
        returned disposer first unloads, one at a time and awaited, the fibers that inject
        ``key``, then removes the service.
        Raises ServiceConflictError naming both owners when ``key`` already has a provider;
        KernelClosedError when this context is closed.
        """
        return self._runtime.provide(key, value, self._scope)

    def get(self, key: ServiceKey[T]) -> T | None:
        """The service under ``key``, or None when nobody provides it.

        A service being withdrawn stays visible until its dependents have unloaded.
        """
        entry = self._runtime.services.lookup(key.name)
        # The provider stored a value of the key's type (provide is typed by the key).
        return None if entry is None else cast(T, entry.value)

    def require(self, key: ServiceKey[T]) -> T:
        """The service under ``key``. Raises ServiceMissingError when nobody provides it."""
        entry = self._runtime.services.lookup(key.name)
        if entry is None:
            raise ServiceMissingError(key.name)
        # The provider stored a value of the key's type (provide is typed by the key).
        return cast(T, entry.value)

    # -- effects and tasks -------------------------------------------------------------------

    def effect(self, body: EffectBody) -> Disposer:
        """Run a synchronous effect body now; its disposers unwind LIFO when disposed.

        A generator body rolls back on a failing step, then the error propagates (see
        ``effects``). A rollback step returning an awaitable is finished by a shielded task
        this context owns; ``aeffect`` awaits such steps in order instead.
        Raises EffectError for async bodies (use ``aeffect``); KernelClosedError when this
        context is closed.
        """
        self._scope.ensure_open()
        teardowns = run_effect(body, defer=self._finish_later)
        return self._scope.adopt(partial(unwind, teardowns), label=f"effect {describe(body)}")

    async def aeffect(self, body: AsyncEffectBody) -> Disposer:
        """Run any effect body (sync, coroutine, sync or async generator); see ``effect``.

        If this context closes while the body runs, the body's disposers are unwound at once
        and KernelClosedError is raised.
        """
        self._scope.ensure_open()
        teardowns = await arun_effect(body)
        if self._scope.closed:
            with anyio.CancelScope(shield=True):
                await unwind(teardowns, contain=True)
            self._scope.ensure_open()
        return self._scope.adopt(partial(unwind, teardowns), label=f"effect {describe(body)}")

    def start_soon(
        self,
        fn: Callable[[*Ts], Awaitable[object]],
        *args: *Ts,
        name: str | None = None,
    ) -> None:
        """Run ``fn(*args)`` in the kernel's task group, owned by this context.

        Unloading the owner cancels the task and awaits it. An exception from the task is
        logged; it cancels nothing else. Raises KernelClosedError when this context is closed.
        """
        self._scope.start_soon(fn, *args, name=name)

    def _finish_later(self, awaitable: Awaitable[object]) -> None:
        self._scope.start_soon(_shielded, awaitable, name="effect rollback")

    # -- plugins -----------------------------------------------------------------------------

    async def plugin(self, plugin: Plugin[C] | type[Plugin[C]], config: object = None) -> Fiber:
        """Load ``plugin`` (an instance, or a class to instantiate) as a fiber of this context.

        Validates ``config`` first, then applies the plugin right away if every injected
        service is available; otherwise the fiber stays pending and applies once they are.
        Raises PluginConfigError (nothing was loaded); PluginFailedError when apply raises now
        (the fiber stays, FAILED, owned by this context); KernelClosedError when closed.
        """
        instance = plugin() if isinstance(plugin, type) else plugin
        return await self._runtime.load(instance, config, self._scope)

    # -- events ------------------------------------------------------------------------------

    @overload
    def on(
        self, event: EmitEvent[P], listener: EmitListener[P], *, prepend: bool = False
    ) -> Disposer: ...
    @overload
    def on(
        self,
        event: WaterfallEvent[P, R],
        listener: WaterfallListener[P, R],
        *,
        prepend: bool = False,
    ) -> Disposer: ...
    @overload
    def on(
        self,
        event: StreamWaterfallEvent[P, Y],
        listener: StreamListener[P, Y],
        *,
        prepend: bool = False,
    ) -> Disposer: ...
    @overload
    def on(
        self, event: SerialEvent[P, R], listener: SerialListener[P, R], *, prepend: bool = False
    ) -> Disposer: ...
    @overload
    def on(
        self, event: ParallelEvent[P], listener: ParallelListener[P], *, prepend: bool = False
    ) -> Disposer: ...
    def on(
        self, event: AnyEvent, listener: Callable[..., Any], *, prepend: bool = False
    ) -> Disposer:
        """Register ``listener`` on ``event`` as an effect of this context.

        Listeners run in registration order; ``prepend`` puts this one first.
        Raises ListenerError for a coroutine listener on an emit event; KernelClosedError
        when this context is closed.
        """
        # Any: the overloads above tie the listener's type to the event's.
        self._scope.ensure_open()
        remove = self._bus.add(event, listener, owner=self._scope.owner, prepend=prepend)
        return self._scope.adopt(remove, label=f"listener of {event.name!r}")

    def emit(self, event: EmitEvent[P], payload: P) -> None:
        """Call every listener synchronously; the first listener error propagates and skips
        the rest. Raises ListenerError if a listener returns an awaitable."""
        self._bus.emit(event, payload)

    def emit_contained(self, event: EmitEvent[P], payload: P) -> None:
        """Call every listener synchronously; each listener error is logged, never raised."""
        self._bus.emit_contained(event, payload)

    async def waterfall(
        self, event: WaterfallEvent[P, R], payload: P, inner: Callable[[], Awaitable[R]]
    ) -> R:
        """Run the around-middleware chain around ``inner``; see ``WaterfallEvent``.

        Raises what a listener or ``inner`` raises; WaterfallMisuseError on a second next().
        """
        return await self._bus.waterfall(event, payload, inner)

    def stream_waterfall(
        self,
        event: StreamWaterfallEvent[P, Y],
        payload: P,
        inner: Callable[[], AsyncIterator[Y]],
    ) -> AsyncIterator[Y]:
        """The stream the listener chain makes of ``inner()``; see ``StreamWaterfallEvent``.

        Lazy: nothing runs before iteration; errors surface from iterating. The caller owns
        the returned iterator (close it if it stops early).
        """
        return self._bus.stream_waterfall(event, payload, inner)

    async def serial(self, event: SerialEvent[P, R], payload: P) -> R | None:
        """Await listeners in order; return the first non-None result (skipping the rest) or
        None. A listener error propagates."""
        return await self._bus.serial(event, payload)

    async def parallel(self, event: ParallelEvent[P], payload: P) -> None:
        """Run all listeners concurrently to completion, then raise the first failure."""
        await self._bus.parallel(event, payload)


async def _shielded(awaitable: Awaitable[object]) -> None:
    with anyio.CancelScope(shield=True):
        await awaitable
