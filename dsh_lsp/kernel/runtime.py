"""Runtime: the shared state behind every context of one kernel (kernel layer).

It holds the service store, the event bus, the task group, and the index of which fibers
inject which service, and it implements the two cross-fiber operations: providing a service
(which wakes pending dependents) and withdrawing one (which unloads dependents first).
Private to the kernel; plugins reach it only through their ``Context``.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
from anyio.abc import TaskGroup

from .bus import EventBus
from .disposer import Disposer
from .errors import KernelClosedError
from .fiber import Fiber, FiberState
from .plugin import Plugin, validate_config
from .scope import Scope
from .services import ServiceEntry, ServiceKey, ServiceStore

if TYPE_CHECKING:
    from .kernel import Kernel

T = TypeVar("T")
# Any: a task's coroutine is awaited for its side effects; its send/yield types are unused.
Task = Callable[[], Coroutine[Any, Any, None]]


class Runtime:
    """State shared by one kernel's contexts; created and closed by ``Kernel``."""

    def __init__(self, kernel: Kernel, task_group: TaskGroup) -> None:
        self.kernel = kernel
        self.services = ServiceStore()
        self.bus = EventBus()
        self.closed = False
        self._task_group = task_group
        self._dependents: dict[str, dict[Fiber, None]] = {}
        self._fibers: dict[Fiber, None] = {}
        self._tasks = 0
        self._activations = 0
        self._quiet = anyio.Event()
        self._quiet.set()

    # -- tasks -------------------------------------------------------------------------------

    def new_scope(self, owner: str) -> Scope:
        """A fresh scope whose background tasks run in this kernel's task group."""
        return Scope(owner=owner, spawn=self._spawn_owned)

    def _spawn(self, fn: Task, name: str, done: Callable[[], None]) -> None:
        if self.closed:
            raise KernelClosedError(f"the kernel is closed; cannot start {name!r}")

        async def run() -> None:
            try:
                await fn()
            finally:
                done()

        self._task_group.start_soon(run, name=name)

    def _spawn_owned(self, fn: Task, name: str) -> None:
        self._spawn(fn, name, self._task_done)
        self._tasks += 1

    def _task_done(self) -> None:
        self._tasks -= 1

    def spawn_activation(self, fn: Task, name: str) -> None:
        """Start a deferred fiber activation; ``wait_settled`` waits for all of them."""
        self._spawn(fn, name, self._activation_done)
        if not self._activations:
            self._quiet = anyio.Event()
        self._activations += 1

    def _activation_done(self) -> None:
        self._activations -= 1
        if not self._activations:
            self._quiet.set()

    async def wait_settled(self) -> None:
        """Wait until no deferred activation is scheduled or running."""
        while self._activations:
            await self._quiet.wait()

    @property
    def task_count(self) -> int:
        """Background tasks started through contexts that have not finished."""
        return self._tasks

    # -- services ----------------------------------------------------------------------------

    def provide(self, key: ServiceKey[T], value: T, scope: Scope) -> Disposer:
        """Store the service, owned by ``scope``; wake pending fibers that inject it.

        Raises ServiceConflictError, or KernelClosedError when ``scope`` is closed.
        """
        scope.ensure_open()
        entry = self.services.add(key.name, value, owner=scope.owner)
        disposer = scope.adopt(
            lambda: self._withdraw(key.name, entry), label=f"service {key.name!r}"
        )
        for fiber in tuple(self._dependents.get(key.name, ())):
            if fiber.state is FiberState.PENDING and self.ready(fiber.inject):
                fiber.schedule_activation()
        return disposer

    async def _withdraw(self, name: str, entry: ServiceEntry) -> None:
        entry.withdrawing = True
        for fiber in reversed(tuple(self._dependents.get(name, ()))):
            await fiber.unload()
        self.services.remove(name, entry)

    def ready(self, keys: Iterable[ServiceKey[Any]]) -> bool:
        """True when every key has a provider that is not being withdrawn."""
        # Any: keys of unrelated service types.
        return all(self.services.available(key.name) for key in keys)

    # -- fibers ------------------------------------------------------------------------------

    async def load(self, plugin: Plugin[Any], config: object, parent: Scope) -> Fiber:
        """Validate, create and (if its services are there) apply a fiber owned by ``parent``.

        Raises PluginConfigError, PluginFailedError, KernelClosedError (see Context.plugin).
        """
        # Any: plugins of every config type load the same way.
        parent.ensure_open()
        validated = validate_config(plugin, config)
        fiber = Fiber(self, plugin, validated, adopt=parent)
        self._fibers[fiber] = None
        for key in fiber.inject:
            self._dependents.setdefault(key.name, {})[fiber] = None
        await fiber.activate()
        return fiber

    def forget(self, fiber: Fiber) -> None:
        """Drop a disposed fiber from the dependency index."""
        self._fibers.pop(fiber, None)
        for key in fiber.inject:
            dependents = self._dependents.get(key.name)
            if dependents is not None:
                dependents.pop(fiber, None)
                if not dependents:
                    del self._dependents[key.name]

    @property
    def fiber_count(self) -> int:
        """Fibers loaded and not yet disposed."""
        return len(self._fibers)
