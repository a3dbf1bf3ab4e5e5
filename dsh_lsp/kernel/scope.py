"""Scope: the effects and background tasks one owner holds, unwound LIFO on close (kernel).

An owner is the kernel's root context or one activation of a fiber. Every registration made
through its context (service, listener, effect, child fiber, background task) is adopted
here as a ``Disposer``. ``close()`` unwinds them in reverse registration order, one at a
time, each awaited before the next starts (sequential LIFO). A background task is an effect
too: its disposer cancels the task and waits for it to finish, so a closed scope is
quiescent.

Sequential LIFO across sibling effects is deliberate: a later registration may depend on an
earlier one (a listener on a service, a task on both), so undoing in reverse, one at a time,
never tears a dependency down under a dependant. A failing disposer is logged and the
unwinding goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVarTuple

import anyio

from .disposer import Disposer
from .effects import describe
from .errors import KernelClosedError

logger = logging.getLogger(__name__)

Ts = TypeVarTuple("Ts")

# Any: the coroutine is awaited for its side effects; its send and yield types are unused.
Spawn = Callable[[Callable[[], Coroutine[Any, Any, None]], str], None]
"""Starts ``fn()`` in the kernel's task group under the given task name."""


class Scope:
    """The registrations of one owner; adopt them while open, ``close()`` to unwind them all."""

    __slots__ = ("_closed", "_effects", "_spawn", "owner")

    def __init__(self, *, owner: str, spawn: Spawn) -> None:
        self.owner = owner
        self._spawn = spawn
        self._effects: dict[Disposer, None] = {}
        self._closed = False

    @property
    def closed(self) -> bool:
        """True once ``close()`` began; nothing more can be adopted."""
        return self._closed

    def __len__(self) -> int:
        return len(self._effects)

    def ensure_open(self) -> None:
        """Raises KernelClosedError when the scope is closed."""
        if self._closed:
            raise KernelClosedError(f"{self.owner} is closed; it cannot register anything")

    def adopt(self, teardown: Callable[[], object], *, label: str) -> Disposer:
        """Own ``teardown`` as an effect; returns its disposer (which forgets itself when done).

        Raises KernelClosedError when the scope is closed.
        """
        self.ensure_open()
        effects = self._effects

        def forget() -> None:
            effects.pop(disposer, None)

        disposer = Disposer(teardown, label=label, on_done=forget)
        effects[disposer] = None
        return disposer

    def start_soon(
        self,
        fn: Callable[[*Ts], Awaitable[object]],
        *args: *Ts,
        name: str | None = None,
    ) -> None:
        """Run ``fn(*args)`` in the kernel's task group as a task this scope owns.

        Closing the scope cancels the task and waits for it. An exception the task raises is
        logged with the owner's name; it never cancels sibling tasks or the kernel.
        Raises KernelClosedError when the scope is closed.
        """
        task_name = name or describe(fn)
        cancel = anyio.CancelScope()
        finished = anyio.Event()

        async def stop() -> None:
            cancel.cancel()
            await finished.wait()

        disposer = self.adopt(stop, label=f"task {task_name!r}")

        async def run() -> None:
            try:
                with cancel:
                    await fn(*args)
            except Exception:
                logger.exception("%s: background task %r failed", self.owner, task_name)
            finally:
                finished.set()
                self._effects.pop(disposer, None)

        self._spawn(run, task_name)

    async def close(self) -> None:
        """Unwind every effect, newest first, one at a time; returns when all have finished.

        Idempotent. Runs shielded from cancellation. Disposer errors are logged, not raised.
        """
        self._closed = True
        with anyio.CancelScope(shield=True):
            while self._effects:
                disposer = next(reversed(self._effects))
                try:
                    await disposer()
                except Exception:
                    logger.exception("%s: disposing %s failed", self.owner, disposer.label)
                self._effects.pop(disposer, None)
