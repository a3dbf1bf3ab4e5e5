"""Helpers for the fs_tools tests: a kernel with every file plugin loaded, sessions, calls."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from dsh_lsp.fs_tools import FS, FileSystem, FsPolicyPlugin, FsToolsPlugin
from dsh_lsp.fs_tools.local import LocalFileSystemPlugin, LocalSearchPlugin
from dsh_lsp.kernel import Kernel
from dsh_lsp.llm import JsonValue, TextBlock
from dsh_lsp.tools import TOOLS, ToolResult, ToolsPlugin
from tests.tools.support import WorkspaceHarness


@dataclass(frozen=True, slots=True, kw_only=True)
class FsHarness(WorkspaceHarness):
    """A running kernel with the tools services and the local file plugins."""

    fs: FileSystem
    policy: FsPolicyPlugin | None


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
