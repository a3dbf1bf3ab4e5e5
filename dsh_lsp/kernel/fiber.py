"""Fiber: one loaded plugin and its lifecycle — pending, loading, active, failed, disposed (kernel).

``ctx.plugin(...)`` creates a fiber owned by the calling context. The fiber applies the
plugin once every injected service is available, each activation in a fresh scope with a
fresh context. When an injected service is withdrawn the fiber unloads (its scope unwinds)
and goes back to pending; when the service returns it applies again. Transitions of one
fiber are serialized by a lock. From inside a plugin's own ``apply``, do not dispose or
wait on its fiber, nor withdraw a service it injects: that would wait for itself.

::

    PENDING → LOADING   every injected service is available (inline, or in a kernel task)
    LOADING → ACTIVE    apply returned
    LOADING → FAILED    apply raised (``error``), or was cancelled by its caller
    LOADING → PENDING   an injected service was withdrawn meanwhile (apply is cancelled)
    ACTIVE  → PENDING   an injected service was withdrawn (registrations unwound)
    FAILED  → PENDING   an injected service was withdrawn (it retries when that returns)
    any     → DISPOSED  dispose()
"""

from __future__ import annotations

import enum
import logging
from typing import TYPE_CHECKING, Any

import anyio

from .context import Context
from .disposer import Disposer
from .errors import PluginFailedError
from .plugin import Plugin, plugin_name
from .scope import Scope
from .services import ServiceKey

if TYPE_CHECKING:
    from .runtime import Runtime

logger = logging.getLogger(__name__)


class FiberState(enum.Enum):
    """Where a fiber is in its lifecycle."""

    PENDING = "pending"
    """Waiting for an injected service (or never applied yet)."""
    LOADING = "loading"
    """``apply`` is running."""
    ACTIVE = "active"
    """``apply`` returned; its registrations are live."""
    FAILED = "failed"
    """``apply`` raised (``error``) or was cancelled; its registrations were undone."""
    DISPOSED = "disposed"
    """Disposed for good."""


class Fiber:
    """A loaded plugin; owned by the context that loaded it, disposed with it at the latest."""

    def __init__(
        self,
        runtime: Runtime,
        plugin: Plugin[Any],
        config: object,
        *,
        adopt: Scope,
    ) -> None:
        # Any: a fiber runs plugins of any config type; ``config`` was validated for it.
        self.plugin = plugin
        self.config = config
        self.name = plugin_name(plugin)
        self._state = FiberState.PENDING
        self._error: Exception | None = None
        self._runtime = runtime
        self._scope: Scope | None = None
        self._lock = anyio.Lock()
        self._scheduled = False
        self._applying: anyio.CancelScope | None = None
        self._settled = anyio.Event()
        self._settled.set()
        self._disposer: Disposer = adopt.adopt(self._teardown, label=f"plugin {self.name!r}")

    def __repr__(self) -> str:
        return f"<Fiber {self.name!r} {self._state.value}>"

    @property
    def state(self) -> FiberState:
        """Where the fiber is in its lifecycle."""
        return self._state

    @property
    def error(self) -> Exception | None:
        """What the last apply raised while the fiber is FAILED; None otherwise."""
        return self._error

    @property
    def inject(self) -> tuple[ServiceKey[Any], ...]:
        """The service keys this fiber waits for (the plugin's ``inject``; Any: keys of
        unrelated service types)."""
        return self.plugin.inject

    @property
    def owner(self) -> str:
        """How errors and logs name this fiber."""
        return f"plugin {self.name!r}"

    async def dispose(self) -> None:
        """Unload for good; returns once every effect is unwound and every task it started
        has finished (quiescence). Single-shot: concurrent callers share one disposal.

        Disposer errors are logged, not raised.
        """
        await self._disposer()

    async def wait_settled(self) -> FiberState:
        """Wait until no activation of this fiber is scheduled or running; return its state."""
        await self._settled.wait()
        async with self._lock:
            return self._state

    async def activate(self) -> None:
        """Apply the plugin if the fiber is pending and every injected service is available.

        An unload or dispose arriving while apply runs aborts it (apply is cancelled, its
        registrations undone) and this returns with the fiber PENDING (or DISPOSED).
        Raises PluginFailedError (``__cause__`` = apply's exception) if apply raises.
        """
        async with self._lock:
            if self._state is not FiberState.PENDING or not self._runtime.ready(self.inject):
                return
            self._state = FiberState.LOADING
            scope = self._scope = self._runtime.new_scope(self.owner)
            with anyio.CancelScope() as self._applying:
                try:
                    await self.plugin.apply(Context(self._runtime, scope, self), self.config)
                except Exception as exc:
                    await self._fail(exc)
                    raise PluginFailedError(self.name, fiber=self, cause=exc) from exc
                except BaseException:
                    await self._fail(None)
                    raise
                finally:
                    self._applying = None
            if self._state is FiberState.FAILED:  # aborted by an unload or dispose
                self._state = FiberState.PENDING
            else:
                self._state = FiberState.ACTIVE

    def schedule_activation(self) -> None:
        """Activate soon in a kernel task; a failure is logged and leaves the fiber FAILED."""
        if self._scheduled:
            return
        self._scheduled = True
        self._settled = anyio.Event()
        self._runtime.spawn_activation(self._activate_later, f"activate {self.owner}")

    async def unload(self) -> None:
        """An injected service is going: undo the activation and go back to pending.

        An apply in progress is aborted first (it cannot finish without the service).
        """
        self._abort_apply()
        async with self._lock:
            if self._state is FiberState.ACTIVE:
                await self._close_scope()
                self._state = FiberState.PENDING
            elif self._state is FiberState.FAILED:
                self._state = FiberState.PENDING
                self._error = None

    async def _activate_later(self) -> None:
        try:
            await self.activate()
        except PluginFailedError:
            logger.exception("%s failed to activate", self.owner)
        finally:
            self._scheduled = False
            self._settled.set()

    async def _fail(self, error: Exception | None) -> None:
        await self._close_scope()
        self._state = FiberState.FAILED
        self._error = error

    async def _close_scope(self) -> None:
        scope, self._scope = self._scope, None
        if scope is not None:
            await scope.close()

    def _abort_apply(self) -> None:
        if self._applying is not None:
            self._applying.cancel()

    async def _teardown(self) -> None:
        self._abort_apply()
        async with self._lock:
            self._runtime.forget(self)
            self._state = FiberState.DISPOSED
            await self._close_scope()
