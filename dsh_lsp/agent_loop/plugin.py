"""AgentLoopPlugin: the default agent loop as one swappable plugin (agent_loop).

It injects the registry, the session store, the model service, the tool registry and the
system prompt, fills the registry's factory slot with ``LoopFactory``, and adds one
``tools/pre-execute`` listener (prepended) that delivers a pending cancellation before a tool
call starts, so a cancelled turn never starts its next call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio

from dsh_lsp.agent import AGENTS
from dsh_lsp.kernel import Context, Plugin
from dsh_lsp.llm import LLM
from dsh_lsp.session import SESSIONS
from dsh_lsp.tools import SYSTEM_PROMPT, TOOLS, TOOLS_PRE_EXECUTE, PreToolDecision, ToolExecution

from .factory import LoopFactory
from .services import LoopServices


async def cancellation_checkpoint(
    execution: ToolExecution, proceed: Callable[[], Awaitable[PreToolDecision]]
) -> PreToolDecision:
    """Raise the caller's pending cancellation (if any) before the call goes further."""
    await anyio.lowlevel.checkpoint_if_cancelled()
    return await proceed()


class AgentLoopPlugin(Plugin[None]):
    """The only implementation of the agent interface; load it once per kernel."""

    name = "agent-loop"
    inject = (AGENTS, SESSIONS, LLM, TOOLS, SYSTEM_PROMPT)

    async def apply(self, ctx: Context, config: None) -> None:
        """Fill the factory slot; every agent created is owned by this plugin's fiber.

        Raises AgentError (``FACTORY_EXISTS``) when another loop is loaded.
        """
        services = LoopServices(
            ctx=ctx,
            agents=ctx.require(AGENTS),
            sessions=ctx.require(SESSIONS),
            llm=ctx.require(LLM),
            tools=ctx.require(TOOLS),
            system_prompt=ctx.require(SYSTEM_PROMPT),
        )
        factory = LoopFactory(services)
        ctx.effect(lambda: services.agents.set_factory(factory))
        ctx.on(TOOLS_PRE_EXECUTE, cancellation_checkpoint, prepend=True)
