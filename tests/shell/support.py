"""Helpers for the shell tests: a kernel with the tools and the shell, sessions, calls."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from dsh_lsp.kernel import Kernel
from dsh_lsp.llm import JsonValue, TextBlock
from dsh_lsp.shell import ShellPlugin
from dsh_lsp.tools import TOOLS, ToolResult, ToolsPlugin
from tests.tools.support import WorkspaceHarness


@dataclass(frozen=True, slots=True, kw_only=True)
class ShellHarness(WorkspaceHarness):
    """A running kernel with ``ToolsPlugin`` and ``ShellPlugin``."""

    plugin: ShellPlugin


@asynccontextmanager
async def shell_kernel(
    root: Path,
    *,
    config: dict[str, JsonValue] | None = None,
    environ: Mapping[str, str] | None = None,
) -> AsyncIterator[ShellHarness]:
    """A kernel with the tools services and the shell over ``environ`` (default: ours)."""
    env = dict(os.environ if environ is None else environ)
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(ToolsPlugin)
        plugin = ShellPlugin(environ=lambda: env)
        await ctx.plugin(plugin, config)
        yield ShellHarness(
            kernel=kernel, ctx=ctx, registry=ctx.require(TOOLS), root=root, plugin=plugin
        )


def text_of(result: ToolResult) -> str:
    """The text of a result's blocks."""
    return "".join(block.text for block in result.content if isinstance(block, TextBlock))


def live_members(pgid: int) -> list[int]:
    """The pids of the group ``pgid`` that are alive (zombies waiting for ``init`` to reap
    them are dead and do not count), read from ``/proc``."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_bytes()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            alive.append(int(entry))
    return alive
