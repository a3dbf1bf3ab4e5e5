"""FsToolsPlugin and FsPolicyPlugin lifecycles: registration, prompt sections, clean unload."""

from __future__ import annotations

from pathlib import Path

from dsh_lsp.fs_tools import (
    FS_EDIT_INTENT,
    FS_OBSERVED,
    FS_TOOL_SECTIONS,
    FS_WRITE_INTENT,
    FsPolicyPlugin,
    FsToolsPlugin,
)
from dsh_lsp.fs_tools.local import LocalFileSystemPlugin, LocalSearchPlugin
from dsh_lsp.kernel import Kernel
from dsh_lsp.tools import SYSTEM_PROMPT, TOOLS, TOOLS_PRE_EXECUTE, ToolsPlugin, render_prompt

TOOL_NAMES = ("read", "write", "edit", "multi_edit", "list", "glob", "grep")


async def test_the_tools_plugin_registers_everything_and_unloads_cleanly(tmp_path: Path) -> None:
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(ToolsPlugin, {"identity": False})
        registry, prompt = ctx.require(TOOLS), ctx.require(SYSTEM_PROMPT)
        gates_before = kernel.listener_count(TOOLS_PRE_EXECUTE)
        tools = await ctx.plugin(FsToolsPlugin)
        assert registry.names() == (), "the tools wait for FS and FS_SEARCH"
        local = await ctx.plugin(LocalFileSystemPlugin, {"roots": [str(tmp_path)]})
        search = await ctx.plugin(LocalSearchPlugin)
        await kernel.wait_settled()
        assert registry.names() == TOOL_NAMES
        assert [schema.name for schema in registry.schemas()] == list(TOOL_NAMES)
        assembly = await prompt.assemble()
        assert [section.name for section in assembly.sections] == [
            section.name for section in FS_TOOL_SECTIONS
        ]
        assert "`edit` replaces `old_string`" in render_prompt(assembly)
        assert kernel.listener_count(TOOLS_PRE_EXECUTE) == gates_before + 1
        await local.dispose()
        assert registry.names() == (), "losing FS unloads the tools"
        assert prompt.sections() == ()
        assert kernel.listener_count(TOOLS_PRE_EXECUTE) == gates_before
        local = await ctx.plugin(LocalFileSystemPlugin, {"roots": [str(tmp_path)]})
        await kernel.wait_settled()
        assert registry.names() == TOOL_NAMES, "and they come back with it"
        for fiber in (tools, search, local):
            await fiber.dispose()
        assert registry.names() == ()


async def test_the_policy_plugin_registers_three_listeners() -> None:
    async with Kernel() as kernel:
        policy = await kernel.context.plugin(FsPolicyPlugin)
        events = (FS_WRITE_INTENT, FS_EDIT_INTENT, FS_OBSERVED)
        assert [kernel.listener_count(event) for event in events] == [1, 1, 1]
        await policy.dispose()
        assert [kernel.listener_count(event) for event in events] == [0, 0, 0]
