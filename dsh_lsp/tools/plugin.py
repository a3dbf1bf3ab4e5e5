"""ToolsPlugin: provides the ``TOOLS`` registry and the ``SYSTEM_PROMPT`` service (tools layer).

The registry contributes its schemas to prompt assembly as a tool provider, and the default
identity section is registered unless ``identity`` is false in the config.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from dsh_lsp.kernel import Context, Plugin

from .identity import IDENTITY_SECTION
from .registry import TOOLS, ToolRegistry
from .system_prompt import SYSTEM_PROMPT, SystemPrompt


class ToolsConfig(BaseModel):
    """Config of ``ToolsPlugin``: ``identity`` registers the default identity section."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    identity: bool = True


class ToolsPlugin(Plugin[ToolsConfig]):
    """Provides ``TOOLS`` and ``SYSTEM_PROMPT``; both leave when the plugin unloads."""

    name: ClassVar[str] = "tools"
    config_model = ToolsConfig

    async def apply(self, ctx: Context, config: ToolsConfig) -> None:
        """Provide both services and wire the registry into assembly.

        Raises ``ServiceConflictError`` when either key already has a provider.
        """
        prompt = SystemPrompt(ctx)
        registry = ToolRegistry(ctx)
        ctx.provide(SYSTEM_PROMPT, prompt)
        ctx.provide(TOOLS, registry)
        prompt.tools(registry.schemas, fresh=True)  # schemas() returns new copies
        if config.identity:
            prompt.section(IDENTITY_SECTION)
