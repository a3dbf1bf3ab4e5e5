"""FsToolsPlugin: registers the file tools, their prompt sections and the read gate (fs_tools).

Injects ``TOOLS``, ``SYSTEM_PROMPT``, ``FS`` and ``FS_SEARCH``; it activates once all four
are provided and unloads (taking every registration along) when one leaves. The tools talk
only to those services and the ``fs/*`` events, so any ``FS`` provider works underneath.
"""

from __future__ import annotations

from typing import ClassVar

from dsh_lsp.kernel import Context, Plugin
from dsh_lsp.tools import SYSTEM_PROMPT, TOOLS, TOOLS_PRE_EXECUTE

from .filesystem import FS
from .read_gate import outside_read_gate
from .search import FS_SEARCH
from .tool_edit import edit_tool, multi_edit_tool
from .tool_prompts import FS_TOOL_SECTIONS
from .tool_read import read_tool
from .tool_search import glob_tool, grep_tool, list_tool
from .tool_support import ToolDeps
from .tool_write import write_tool
from .tools_config import FsToolsConfig

FS_TOOL_FACTORIES = (
    read_tool,
    write_tool,
    edit_tool,
    multi_edit_tool,
    list_tool,
    glob_tool,
    grep_tool,
)
"""Every file tool's factory, in registration (and schema) order."""


class FsToolsPlugin(Plugin[FsToolsConfig]):
    """The model-facing file tools: read, write, edit, multi_edit, list, glob, grep."""

    name: ClassVar[str] = "fs-tools"
    config_model = FsToolsConfig
    inject = (TOOLS, SYSTEM_PROMPT, FS, FS_SEARCH)

    async def apply(self, ctx: Context, config: FsToolsConfig) -> None:
        """Register the tools, sections and gate as effects of this plugin.

        Raises ToolError (``DUPLICATE_TOOL`` / ``DUPLICATE_SECTION``) when another plugin
        already registered one of the names.
        """
        deps = ToolDeps(ctx=ctx, fs=ctx.require(FS), search=ctx.require(FS_SEARCH), config=config)
        registry = ctx.require(TOOLS)
        prompt = ctx.require(SYSTEM_PROMPT)
        for make in FS_TOOL_FACTORIES:
            registry.register(make(deps), ctx=ctx)
        for section in FS_TOOL_SECTIONS:
            prompt.section(section, ctx=ctx)
        ctx.on(TOOLS_PRE_EXECUTE, outside_read_gate(deps.fs, deps.checked))
