"""Kernel: the one object that owns a running dsh-lsp instance (kernel layer).

``async with Kernel() as kernel`` opens the kernel's single anyio task group; every
background task and deferred plugin activation runs in it. ``kernel.context`` is the root
context: plugins loaded through it are the top-level fibers. Leaving the block unwinds the
root context (newest registration first: fibers dispose, services withdraw, tasks are
cancelled and awaited), then cancels and awaits whatever else still runs in the task group.
An exception raised in the block propagates unchanged (not wrapped in an ExceptionGroup).

The introspection methods (``listener_count``, ``service_keys``, ``task_count``,
``fiber_count``) exist so tests and diagnostics can check that disposal leaves nothing behind.
"""

from __future__ import annotations

from types import TracebackType

import anyio
from anyio.abc import TaskGroup

from .context import Context
from .errors import KernelClosedError
from .events import AnyEvent
from .runtime import Runtime
from .scope import Scope


class Kernel:
    """Owner of the task group, the service store, the event bus and the root context.

    Use once, as an async context manager. Raises KernelClosedError when entered twice or
    when ``context`` is read outside the ``async with`` block.
    """

    def __init__(self) -> None:
        self._task_group: TaskGroup | None = None
        self._runtime: Runtime | None = None
        self._root: Context | None = None
        self._root_scope: Scope | None = None

    async def __aenter__(self) -> Kernel:
        if self._task_group is not None:
            raise KernelClosedError("a Kernel can be entered only once")
        task_group = anyio.create_task_group()
        await task_group.__aenter__()
        self._task_group = task_group
        runtime = self._runtime = Runtime(self, task_group)
        self._root_scope = runtime.new_scope("the kernel")
        self._root = Context(runtime, self._root_scope, None)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        assert self._task_group is not None
        assert self._runtime is not None
        assert self._root_scope is not None
        with anyio.CancelScope(shield=True):
            await self._root_scope.close()
        self._runtime.closed = True
        self._task_group.cancel_scope.cancel()
        # Kernel tasks contain their own exceptions, so the group has nothing to report; passing
        # the body's exception on would only wrap it in an ExceptionGroup. It propagates as is.
        await self._task_group.__aexit__(None, None, None)
        return None

    @property
    def context(self) -> Context:
        """The root context. Raises KernelClosedError before entry or after exit."""
        if self._root is None or self._root.closed:
            raise KernelClosedError("the kernel is not running")
        return self._root

    def _state(self) -> Runtime:
        if self._runtime is None:
            raise KernelClosedError("the kernel was never started")
        return self._runtime

    def listener_count(self, event: AnyEvent) -> int:
        """How many listeners ``event`` has (0 once every registering owner is disposed)."""
        return self._state().bus.count(event)

    def service_keys(self) -> frozenset[str]:
        """The names of the services currently provided."""
        return self._state().services.names()

    def task_count(self) -> int:
        """Background tasks started through contexts and not yet finished."""
        return self._state().task_count

    def fiber_count(self) -> int:
        """Fibers loaded and not yet disposed."""
        return self._state().fiber_count

    async def wait_settled(self) -> None:
        """Wait until no deferred plugin activation is scheduled or running."""
        await self._state().wait_settled()
