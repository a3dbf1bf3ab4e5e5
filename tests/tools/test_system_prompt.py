"""Prompt assembly: section order, tool providers, the assemble waterfall, rendering."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

import pytest

from dsh_lsp.kernel import Context, Kernel, PluginConfigError
from dsh_lsp.llm import ToolSchema
from dsh_lsp.tools import (
    DUPLICATE_SECTION,
    IDENTITY_SECTION,
    SYSTEM_PROMPT,
    SYSTEM_PROMPT_ASSEMBLE,
    SYSTEM_PROMPT_CHANGE,
    TOOLS,
    PromptAssembly,
    PromptSection,
    SystemPrompt,
    ToolError,
    ToolRegistry,
    ToolsPlugin,
    render_prompt,
)

from .support import plugin, text_tool, tools_kernel

Next = Callable[[], Awaitable[PromptAssembly]]


def names(assembly: PromptAssembly) -> list[str]:
    return [section.name for section in assembly.sections]


async def test_sections_sort_by_order_and_ties_keep_registration_order() -> None:
    async with tools_kernel({"identity": False}) as h:
        for name, order in [("c", 5), ("a", 0), ("tie1", 1), ("b", -3), ("tie2", 1)]:
            h.prompt.section(PromptSection(name=name, order=order, text=name))
        assembly = await h.prompt.assemble()
    assert names(assembly) == ["b", "a", "tie1", "tie2", "c"]
    assert render_prompt(assembly) == "b\n\na\n\ntie1\n\ntie2\n\nc"


async def test_the_identity_section_comes_first_unless_disabled() -> None:
    async with tools_kernel() as h:
        h.prompt.section(PromptSection(name="persona", order=0, text="Be terse."))
        assembly = await h.prompt.assemble()
    assert names(assembly) == ["dsh:identity", "persona"]
    text = render_prompt(assembly)
    assert text.startswith("You are a coding agent working inside the user's code editor.")
    assert text.endswith("\n\nBe terse.")
    assert "buffers" in text
    async with tools_kernel({"identity": False}) as h:
        assert (await h.prompt.assemble()).sections == ()


async def test_unknown_config_is_rejected() -> None:
    with pytest.raises(PluginConfigError):
        async with tools_kernel({"idnetity": False}):
            pass


async def test_lazy_text_is_evaluated_at_render_time_and_empty_sections_drop() -> None:
    calls: list[int] = []

    def lazy() -> str:
        calls.append(1)
        return f"call {len(calls)}"

    async with tools_kernel({"identity": False}) as h:
        h.prompt.section(PromptSection(name="lazy", order=0, text=lazy))
        h.prompt.section(PromptSection(name="empty", order=1, text=""))
        h.prompt.section(PromptSection(name="empty-lazy", order=2, text=lambda: ""))
        h.prompt.section(PromptSection(name="tail", order=3, text="tail"))
        assembly = await h.prompt.assemble()
        assert calls == []
        assert render_prompt(assembly) == "call 1\n\ntail"
        assert render_prompt(assembly) == "call 2\n\ntail"


def test_render_of_nothing_is_empty() -> None:
    assert render_prompt(PromptAssembly(sections=(), tools=())) == ""


async def test_duplicate_section_names_are_rejected() -> None:
    async with tools_kernel() as h:
        with pytest.raises(ToolError) as caught:
            h.prompt.section(replace(IDENTITY_SECTION, text="impostor"))
    assert caught.value.code == DUPLICATE_SECTION


async def test_registry_schemas_reach_the_assembly_as_copies() -> None:
    async with tools_kernel() as h:
        h.registry.register(text_tool("read"))
        h.registry.register(text_tool("write"))
        assembly = await h.prompt.assemble()
        assert [tool.name for tool in assembly.tools] == ["read", "write"]
        assert assembly.tools == h.registry.schemas()
        definition = h.registry.get("read")
        assert definition is not None
        assert assembly.tools[0].parameters is not definition.parameters


async def test_a_provider_not_registered_fresh_gets_its_parameters_copied() -> None:
    shared: dict[str, object] = {"type": "object", "properties": {"q": {"type": "string"}}}
    schema = ToolSchema(name="web", description="web", parameters=shared)  # type: ignore[arg-type]
    async with tools_kernel({"identity": False}) as h:
        h.prompt.tools(lambda: [schema])
        first, second = await h.prompt.assemble(), await h.prompt.assemble()
    assert first.tools[0].parameters == shared
    assert first.tools[0].parameters is not shared
    assert first.tools[0].parameters is not second.tools[0].parameters


async def test_providers_concatenate_and_leave_with_their_plugin() -> None:
    extra = ToolSchema(name="web", description="web", parameters={"type": "object"})
    changes: list[None] = []

    async def body(ctx: Context) -> None:
        prompt = ctx.require(SYSTEM_PROMPT)
        prompt.tools(lambda: [extra], ctx=ctx)
        prompt.section(PromptSection(name="web:guide", order=110, text="Cite sources."), ctx=ctx)

    async with tools_kernel({"identity": False}) as h:
        h.ctx.on(SYSTEM_PROMPT_CHANGE, changes.append)
        h.registry.register(text_tool("read"))
        fiber = await h.ctx.plugin(plugin("web", body))
        assembly = await h.prompt.assemble()
        assert [tool.name for tool in assembly.tools] == ["read", "web"]
        assert names(assembly) == ["web:guide"]
        await fiber.dispose()
        assembly = await h.prompt.assemble()
        assert [tool.name for tool in assembly.tools] == ["read"]
        assert assembly.sections == ()
    assert len(changes) == 4


async def test_the_assemble_waterfall_rewrites_sections_and_filters_tools() -> None:
    async def plan_mode(assembly: PromptAssembly, next_: Next) -> PromptAssembly:
        result = await next_()
        return replace(
            result,
            sections=(*result.sections, PromptSection(name="plan", order=999, text="Plan only.")),
            tools=tuple(tool for tool in result.tools if tool.name != "write"),
        )

    async with tools_kernel({"identity": False}) as h:
        h.registry.register(text_tool("read"))
        h.registry.register(text_tool("write"))
        disposer = h.ctx.on(SYSTEM_PROMPT_ASSEMBLE, plan_mode)
        filtered = await h.prompt.assemble()
        await disposer()
        unfiltered = await h.prompt.assemble()
    assert [tool.name for tool in filtered.tools] == ["read"]
    assert render_prompt(filtered) == "Plan only."
    assert [tool.name for tool in unfiltered.tools] == ["read", "write"]
    assert unfiltered.sections == ()


async def test_the_services_leave_with_the_tools_plugin() -> None:
    async with Kernel() as kernel:
        fiber = await kernel.context.plugin(ToolsPlugin)
        registry: ToolRegistry | None = kernel.context.get(TOOLS)
        prompt: SystemPrompt | None = kernel.context.get(SYSTEM_PROMPT)
        assert registry is not None
        assert prompt is not None
        await fiber.dispose()
        assert kernel.context.get(TOOLS) is None
        assert kernel.context.get(SYSTEM_PROMPT) is None
