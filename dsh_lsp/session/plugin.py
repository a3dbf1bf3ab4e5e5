"""SessionPlugin: provides the SESSIONS store to a kernel (session layer)."""

from __future__ import annotations

from collections.abc import Callable

from dsh_lsp.kernel import Context, Plugin
from dsh_lsp.llm import SessionId

from .clock import Clock
from .store import SESSIONS, SessionStore


class SessionPlugin(Plugin[None]):
    """Provides ``SESSIONS``. ``clock`` and ``new_id`` are injectable for tests.

    Persistence is separate: load a backend plugin and ``PersistenceCoordinatorPlugin``.
    """

    name = "session"

    def __init__(
        self, *, clock: Clock | None = None, new_id: Callable[[], SessionId] | None = None
    ) -> None:
        self._clock = clock
        self._new_id = new_id

    async def apply(self, ctx: Context, config: None) -> None:
        """Provide a fresh ``SessionStore``, owned by this plugin's fiber."""
        ctx.provide(SESSIONS, SessionStore(ctx, clock=self._clock, new_id=self._new_id))
