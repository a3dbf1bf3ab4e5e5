"""AgentRegistry: the ``agents`` service — live agents by id and the loop's factory slot (agent).

UIs and plugins create agents only through the registry; the registry delegates to the one
factory an agent loop plugin installs (``set_factory``), and the factory registers each agent
it starts (``register``). ``AgentsPlugin`` provides the service under ``AGENTS``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from dsh_lsp.kernel import Context, Plugin, ServiceKey
from dsh_lsp.llm import SessionId

from .agent import Agent
from .errors import AgentCode, AgentError
from .events import AGENT_CREATED, AGENT_DISPOSED
from .handle import AgentHandle
from .ids import AgentId
from .options import AgentOptions

if TYPE_CHECKING:
    from dsh_lsp.session import SessionEvent

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentSpec:
    """What a new agent starts from.

    ``session_id`` defaults to a fresh id and ``agent_id`` to the session id. ``seed`` is a
    completed prefix of another log (a fork); ``parent_session`` names where it came from.
    """

    options: AgentOptions
    agent_id: AgentId | None = None
    session_id: SessionId | None = None
    cwd: str | None = None
    parent_session: SessionId | None = None
    seed: tuple[SessionEvent, ...] = ()
    title: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ResumeSpec:
    """Which persisted session to continue, with which options (``agent_id`` as above)."""

    session_id: SessionId
    options: AgentOptions
    agent_id: AgentId | None = None


class AgentFactory(Protocol):
    """What an agent loop plugin installs in the registry's factory slot."""

    async def create(self, spec: AgentSpec) -> AgentHandle:
        """Start a new agent on a new session. Raises AgentError, SessionError."""
        ...

    async def resume(self, spec: ResumeSpec) -> AgentHandle:
        """Start an agent on a persisted session. Raises AgentError, SessionError."""
        ...


class AgentRegistry:
    """Live agents by id, and the factory slot. One instance per kernel (``AGENTS``)."""

    __slots__ = ("_agents", "_ctx", "_factory")

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._agents: dict[AgentId, Agent] = {}
        self._factory: AgentFactory | None = None

    def get(self, agent_id: AgentId) -> Agent | None:
        """The live agent with ``agent_id``, or None."""
        return self._agents.get(agent_id)

    def agents(self) -> tuple[Agent, ...]:
        """Every live agent, oldest first."""
        return tuple(self._agents.values())

    async def create(self, spec: AgentSpec) -> AgentHandle:
        """Create and start an agent; the caller owns the returned handle.

        Raises AgentError (``NO_AGENT_FACTORY``, ``AGENT_EXISTS``) and whatever creating the
        session raises.
        """
        return await self._require_factory().create(spec)

    async def resume(
        self, session_id: SessionId, *, options: AgentOptions, agent_id: AgentId | None = None
    ) -> AgentHandle:
        """Start an agent on the persisted session ``session_id``; the caller owns the handle.

        Raises AgentError (``NO_AGENT_FACTORY``, ``AGENT_EXISTS``) and whatever loading the
        session raises (SessionError when it does not exist or is corrupt).
        """
        spec = ResumeSpec(session_id=session_id, options=options, agent_id=agent_id)
        return await self._require_factory().resume(spec)

    def _require_factory(self) -> AgentFactory:
        if self._factory is None:
            raise AgentError(
                "no agent loop is loaded, so agents cannot be created",
                code=AgentCode.NO_AGENT_FACTORY,
            )
        return self._factory

    def set_factory(self, factory: AgentFactory) -> Callable[[], None]:
        """Fill the factory slot; returns the callable that empties it again.

        Raises AgentError (``FACTORY_EXISTS``) when the slot is taken.
        """
        if self._factory is not None:
            raise AgentError(
                "another agent loop already fills the agent factory slot",
                code=AgentCode.FACTORY_EXISTS,
            )
        self._factory = factory

        def clear() -> None:
            if self._factory is factory:
                self._factory = None

        return clear

    def ensure_free(self, agent_id: AgentId) -> None:
        """Raises AgentError (``AGENT_EXISTS``) when ``agent_id`` is taken."""
        if agent_id in self._agents:
            raise AgentError(f"agent {agent_id!r} already exists", code=AgentCode.AGENT_EXISTS)

    def register(self, agent: Agent) -> Callable[[], None]:
        """Add ``agent`` and announce ``agent/created``; returns the callable that removes it
        and announces ``agent/disposed``. Raises AgentError (``AGENT_EXISTS``)."""
        self.ensure_free(agent.id)
        self._agents[agent.id] = agent

        def unregister() -> None:
            if self._agents.get(agent.id) is agent:
                del self._agents[agent.id]
                self._ctx.emit_contained(AGENT_DISPOSED, agent)

        self._ctx.emit_contained(AGENT_CREATED, agent)
        return unregister


AGENTS: ServiceKey[AgentRegistry] = ServiceKey("agents")
"""The agent registry service."""


class AgentsPlugin(Plugin[None]):
    """Provides ``AGENTS``. Agents themselves come from an agent loop plugin's factory."""

    name = "agents"

    async def apply(self, ctx: Context, config: None) -> None:
        """Provide the registry, owned by this plugin's fiber."""
        ctx.provide(AGENTS, AgentRegistry(ctx))
