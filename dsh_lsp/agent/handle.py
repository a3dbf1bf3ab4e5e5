"""AgentHandle: a created agent plus the one way to dispose it (agent layer)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio

from .agent import Agent


class AgentHandle:
    """What ``AgentRegistry.create``/``resume`` return; whoever holds it owns the agent.

    ``dispose()`` stops the driver and waits for it (the closing ``turn/end`` and flush land
    first), unregisters the agent, then detaches its session. It runs once, shielded from
    cancellation: concurrent and later callers wait for that same run and see its outcome.
    The loop plugin also disposes every agent it created when it unloads.
    """

    __slots__ = ("_done", "_error", "_teardown", "agent")

    def __init__(self, agent: Agent, teardown: Callable[[], Awaitable[None]]) -> None:
        self.agent = agent
        self._teardown = teardown
        self._done: anyio.Event | None = None
        self._error: Exception | None = None

    def __repr__(self) -> str:
        return f"<AgentHandle {self.agent.id!r}>"

    @property
    def disposed(self) -> bool:
        """True once disposal has begun."""
        return self._done is not None

    async def dispose(self) -> None:
        """Dispose the agent (memoized). Raises what the teardown raised, to every caller."""
        if self._done is None:
            self._done = anyio.Event()
            try:
                with anyio.CancelScope(shield=True):
                    await self._teardown()
            except Exception as exc:
                self._error = exc
            finally:
                self._done.set()
        else:
            await self._done.wait()
        if self._error is not None:
            raise self._error
