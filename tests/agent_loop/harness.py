"""The loop test harness: a kernel with the real plugins and a scripted in-process model.

``loop_harness()`` loads, in dependency order: invariants (strict), the LLM service with a
``ScriptedModel`` serving model ``scripted``, the session store (plus JSONL persistence when
a directory is given), tools (no identity section, so prompts are exactly what a test adds),
the agent registry and the agent loop. On exit it asserts that no invariant was broken.
Kernels are entered inside each test (an async fixture would exit the kernel's task group
from another task).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dsh_lsp.agent import (
    AGENTS,
    INVARIANTS,
    Agent,
    AgentHandle,
    AgentOptions,
    AgentRegistry,
    AgentSpec,
    AgentsPlugin,
    InvariantChecker,
    InvariantsPlugin,
)
from dsh_lsp.agent_loop import AgentLoopPlugin
from dsh_lsp.kernel import Context, Disposer, Kernel, Plugin
from dsh_lsp.llm import JsonObject, LlmPlugin, TextBlock
from dsh_lsp.session import (
    SESSIONS,
    JsonlPersistencePlugin,
    PersistenceCoordinatorPlugin,
    Session,
    SessionPlugin,
    SessionStore,
)
from dsh_lsp.testing.scripted_model import ScriptedModel, ScriptedModelPlugin, ScriptEntry
from dsh_lsp.tools import TOOLS, Prop, ToolExecution, ToolRegistry, ToolsPlugin, define_tool

MODEL = "scripted"

Execute = Callable[[JsonObject, ToolExecution], Awaitable[str]]
"""A test tool body: validated arguments and the call in, result text out."""


@dataclass
class Harness:
    """The running kernel and the handles tests drive."""

    kernel: Kernel
    ctx: Context
    model: ScriptedModel
    agents: AgentRegistry
    sessions: SessionStore
    tools: ToolRegistry
    checker: InvariantChecker

    async def create(self, **options: Any) -> tuple[Agent, AgentHandle]:
        """A new agent on model ``scripted``; ``options`` are further ``AgentOptions``."""
        # Any: keyword pass-through to AgentOptions.
        handle = await self.agents.create(AgentSpec(options=AgentOptions(model=MODEL, **options)))
        return handle.agent, handle

    def tool(
        self,
        name: str,
        execute: Execute,
        *,
        read_only: bool = False,
        params: Mapping[str, Prop] | None = None,
    ) -> Disposer:
        """Register a tool whose body returns one text block."""

        async def run(args: JsonObject, call: ToolExecution) -> list[TextBlock]:
            return [TextBlock(text=await execute(args, call))]

        spec = params if params is not None else {"path": Prop(type="string")}
        return self.tools.register(
            define_tool(name, f"test tool {name}", spec, run, read_only=read_only)
        )


@contextlib.asynccontextmanager
async def loop_harness(
    *entries: ScriptEntry,
    directory: Path | None = None,
    models: Sequence[tuple[Plugin[Any], object]] = (),
) -> AsyncIterator[Harness]:
    """A kernel with the default plugin set around a scripted model (see the module doc);
    ``models`` are further (plugin, config) pairs loaded after the LLM service."""
    model = ScriptedModel(*entries)
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(InvariantsPlugin, {"strict": True})
        await ctx.plugin(LlmPlugin)
        await ctx.plugin(ScriptedModelPlugin(model, models=(MODEL,)))
        for plugin, config in models:
            await ctx.plugin(plugin, config)
        await ctx.plugin(SessionPlugin)
        if directory is not None:
            await ctx.plugin(JsonlPersistencePlugin, {"directory": str(directory)})
            await ctx.plugin(PersistenceCoordinatorPlugin)
        await ctx.plugin(ToolsPlugin, {"identity": False})
        await ctx.plugin(AgentsPlugin)
        await ctx.plugin(AgentLoopPlugin)
        checker = ctx.require(INVARIANTS)
        yield Harness(
            kernel=kernel,
            ctx=ctx,
            model=model,
            agents=ctx.require(AGENTS),
            sessions=ctx.require(SESSIONS),
            tools=ctx.require(TOOLS),
            checker=checker,
        )
    assert checker.violations == []


def types(session: Session) -> list[str]:
    """The event types of the log, in order."""
    return [event.type for event in session.events]


def of_type(session: Session, kind: str) -> list[JsonObject]:
    """The data of every event of type ``kind``, in order."""
    return [event.data for event in session.events if event.type == kind]


def reasons(session: Session) -> list[str]:
    """The ``kind`` of every ``turn/end`` reason, in order."""
    out = []
    for data in of_type(session, "turn/end"):
        reason = data["reason"]
        assert isinstance(reason, Mapping)
        out.append(str(reason["kind"]))
    return out


def texts(content: object) -> list[str]:
    """The ``text`` fields of a list of block records."""
    assert isinstance(content, list)
    return [str(block["text"]) for block in content if "text" in block]


def block_types(content: object) -> list[str]:
    """The ``type`` tags of a list of block records."""
    assert isinstance(content, list)
    return [str(block["type"]) for block in content]
