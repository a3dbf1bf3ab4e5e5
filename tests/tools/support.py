"""Test helpers for the tools tests: a kernel with ToolsPlugin loaded, and small tools; the
base of the shell and file-tool harnesses (sessions over a workspace, calls)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from itertools import count
from pathlib import Path

import anyio

from dsh_lsp.kernel import Context, Kernel, Plugin
from dsh_lsp.llm import CallId, ContentBlock, JsonObject, JsonValue, SessionId, TextBlock
from dsh_lsp.session import Session, SessionHeader
from dsh_lsp.tools import (
    SYSTEM_PROMPT,
    TOOLS,
    PostToolDecision,
    PreToolDecision,
    Prop,
    SystemPrompt,
    ToolDefinition,
    ToolExecution,
    ToolOutput,
    ToolRegistry,
    ToolResult,
    ToolsPlugin,
    define_tool,
)

PreNext = Callable[[], Awaitable[PreToolDecision]]
"""The ``next`` of a ``tools/pre-execute`` listener."""
PostNext = Callable[[], Awaitable[PostToolDecision]]
"""The ``next`` of a ``tools/post-execute`` listener."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Harness:
    """A running kernel with the tools services."""

    kernel: Kernel
    ctx: Context
    registry: ToolRegistry
    prompt: SystemPrompt


_ids = count()


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkspaceHarness:
    """A running kernel with the tools services over the workspace ``root``."""

    kernel: Kernel
    ctx: Context
    registry: ToolRegistry
    root: Path

    def session(self, cwd: Path | None = None) -> Session:
        """A fresh session whose cwd is ``cwd`` (default: the workspace root)."""
        header = SessionHeader(
            id=SessionId(f"s{next(_ids)}"), created_at=0, cwd=str(cwd or self.root)
        )
        return Session(header)

    async def call(
        self, name: str, arguments: JsonValue | str, session: Session | None = None
    ) -> ToolResult:
        """Run one call through the registry; the final result."""
        execution = ToolExecution(
            call_id=CallId(f"c{next(_ids)}"), name=name, arguments=arguments, session=session
        )
        return (await self.registry.execute(execution)).result


@asynccontextmanager
async def tools_kernel(config: object = None) -> AsyncIterator[Harness]:
    """A kernel with ToolsPlugin loaded (``config`` is its raw config)."""
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(ToolsPlugin, config)
        yield Harness(
            kernel=kernel, ctx=ctx, registry=ctx.require(TOOLS), prompt=ctx.require(SYSTEM_PROMPT)
        )


def plugin(name: str, body: Callable[[Context], Awaitable[None]]) -> Plugin[None]:
    """A config-less plugin named ``name`` whose apply awaits ``body(ctx)``."""

    class AdHoc(Plugin[None]):
        async def apply(self, ctx: Context, config: None) -> None:
            await body(ctx)

    AdHoc.name = name
    return AdHoc()


def text_tool(
    name: str, text: str = "ok", *, read_only: bool = False, required: bool = False
) -> ToolDefinition:
    """A tool with one string parameter ``path`` that answers ``text``."""

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutput:
        return [TextBlock(text=text)]

    return define_tool(
        name,
        f"answers {text}",
        {"path": Prop(type="string", required=required)},
        execute,
        read_only=read_only,
    )


def call(name: str, arguments: JsonValue | str = None, call_id: str = "c1") -> ToolExecution:
    """A call of ``name`` (arguments default to ``{}``)."""
    return ToolExecution(
        call_id=CallId(call_id), name=name, arguments={} if arguments is None else arguments
    )


def texts(result: ToolResult) -> list[str]:
    """The text of each text block of ``result``."""
    return [block.text for block in result.content if isinstance(block, TextBlock)]


def blocks(*items: str) -> tuple[ContentBlock, ...]:
    """Text blocks with these texts."""
    return tuple(TextBlock(text=item) for item in items)


async def cancel_once(work: Callable[[], Awaitable[object]], ready: anyio.Event) -> bool:
    """Run ``work``, cancel it once ``ready`` is set, and say whether the cancellation came out
    of ``work`` (rather than ``work`` returning or swallowing it)."""
    propagated = False

    async def run() -> None:
        nonlocal propagated
        try:
            await work()
        except anyio.get_cancelled_exc_class():
            propagated = True
            raise

    async with anyio.create_task_group() as group:
        group.start_soon(run)
        await ready.wait()
        group.cancel_scope.cancel()
    return propagated
