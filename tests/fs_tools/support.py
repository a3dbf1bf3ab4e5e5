"""Helpers for the fs_tools tests: a kernel with every file plugin loaded, sessions, calls."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from itertools import count
from pathlib import Path

from dsh_lsp.fs_tools import FS, FileSystem, FsPolicyPlugin, FsToolsPlugin
from dsh_lsp.fs_tools.local import LocalFileSystemPlugin, LocalSearchPlugin
from dsh_lsp.kernel import Context, Kernel
from dsh_lsp.llm import CallId, JsonValue, SessionId, TextBlock
from dsh_lsp.session import Session, SessionHeader
from dsh_lsp.tools import TOOLS, ToolExecution, ToolRegistry, ToolResult, ToolsPlugin

_ids = count()


@dataclass(frozen=True, slots=True, kw_only=True)
class FsHarness:
    """A running kernel with the tools services and the local file plugins."""

    kernel: Kernel
    ctx: Context
    registry: ToolRegistry
    fs: FileSystem
    root: Path
    policy: FsPolicyPlugin | None

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
async def fs_kernel(
    root: Path,
    *,
    policy: bool = True,
    tools_config: dict[str, JsonValue] | None = None,
    local_config: dict[str, JsonValue] | None = None,
) -> AsyncIterator[FsHarness]:
    """A kernel with ToolsPlugin, the local FS and search, the policy (optional) and tools."""
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(ToolsPlugin)
        await ctx.plugin(LocalFileSystemPlugin, {"roots": [str(root)], **(local_config or {})})
        await ctx.plugin(LocalSearchPlugin)
        policy_plugin = FsPolicyPlugin() if policy else None
        if policy_plugin is not None:
            await ctx.plugin(policy_plugin)
        await ctx.plugin(FsToolsPlugin, tools_config)
        yield FsHarness(
            kernel=kernel,
            ctx=ctx,
            registry=ctx.require(TOOLS),
            fs=ctx.require(FS),
            root=root,
            policy=policy_plugin,
        )


def text_of(result: ToolResult) -> str:
    """The single text block of a result."""
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, TextBlock)
    return block.text


def ok_text(result: ToolResult) -> str:
    """The text of a successful result (fails the test, showing the error, otherwise)."""
    assert not result.is_error, text_of(result)
    return text_of(result)


def error_code(result: ToolResult) -> str:
    """The error code of a failed result."""
    assert result.is_error, text_of(result)
    assert result.error is not None, text_of(result)
    return result.error.code
