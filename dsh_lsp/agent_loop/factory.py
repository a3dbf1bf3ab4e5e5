"""LoopFactory: the loop's filling of the registry's factory slot — agent lifecycles (agent_loop).

Each agent lives in one composite effect of the loop plugin's context, built in this order:
session attached (created or resumed) → agent registered (``agent/created``) → driver task
started. Disposal unwinds it in reverse, one step at a time: stop the driver and wait for it
(the closing ``turn/end`` and flush land while the session is attached) → unregister
(``agent/disposed``) → detach the session. ``agent/session-start`` fires once the effect
stands, before the driver can start a turn. Unloading the loop plugin disposes every agent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Literal

from dsh_lsp.agent import (
    AGENT_SESSION_START,
    AgentHandle,
    AgentId,
    AgentOptions,
    AgentSpec,
    ResumeSpec,
    SessionStart,
)
from dsh_lsp.session import Session

from .driver import drive
from .loop_agent import LoopAgent
from .services import LoopServices

Teardown = Callable[[], object]


class LoopFactory:
    """Creates and resumes ``LoopAgent``s for ``AgentRegistry`` (see the module docstring)."""

    __slots__ = ("_services",)

    def __init__(self, services: LoopServices) -> None:
        self._services = services

    async def create(self, spec: AgentSpec) -> AgentHandle:
        """A new agent on a new session. Raises AgentError (``AGENT_EXISTS``), SessionError."""
        if spec.agent_id is not None:
            self._services.agents.ensure_free(spec.agent_id)
        session = self._services.sessions.create(
            session_id=spec.session_id,
            cwd=spec.cwd,
            seed=spec.seed,
            parent_session=spec.parent_session,
            title=spec.title,
        )
        return self._start(session, spec.agent_id, spec.options, "startup")

    async def resume(self, spec: ResumeSpec) -> AgentHandle:
        """An agent on the persisted session ``spec.session_id`` (repaired if it crashed).

        Raises AgentError (``AGENT_EXISTS``), SessionError (not found, corrupt, already open,
        no persistence).
        """
        if spec.agent_id is not None:
            self._services.agents.ensure_free(spec.agent_id)
        session = await self._services.sessions.resume(spec.session_id)
        return self._start(session, spec.agent_id, spec.options, "resume")

    def _start(
        self,
        session: Session,
        agent_id: AgentId | None,
        options: AgentOptions,
        reason: Literal["startup", "resume"],
    ) -> AgentHandle:
        services = self._services
        agent = LoopAgent(
            agent_id=agent_id if agent_id is not None else AgentId(session.id),
            options=options,
            session=session,
            services=services,
        )

        def lifecycle() -> Iterator[Teardown]:
            yield lambda: services.sessions.close(session.id)
            yield services.agents.register(agent)
            services.ctx.start_soon(drive, agent, name=f"agent {agent.id} driver")

            async def stop() -> None:
                agent.begin_dispose()
                await agent.exited.wait()

            yield stop

        try:
            dispose = services.ctx.effect(lifecycle)
        except BaseException:
            services.sessions.close(session.id)
            raise
        services.ctx.emit_contained(AGENT_SESSION_START, SessionStart(agent=agent, reason=reason))
        return AgentHandle(agent, dispose)
