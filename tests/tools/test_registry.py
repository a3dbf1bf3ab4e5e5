"""ToolRegistry: registration as an effect, duplicates, schema export, presenters."""

from __future__ import annotations

import pytest

from dsh_lsp.kernel import Context
from dsh_lsp.llm import JsonObject, ToolSchema
from dsh_lsp.tools import (
    DUPLICATE_TOOL,
    INVALID_SCHEMA,
    INVALID_TOOL_NAME,
    TOOLS,
    TOOLS_CHANGE,
    FileDiff,
    Prop,
    ToolCallView,
    ToolDefinition,
    ToolError,
    ToolLocation,
    ToolResult,
    ToolResultView,
    define_tool,
)

from .support import blocks, plugin, text_tool, tools_kernel


async def test_register_get_and_names() -> None:
    async with tools_kernel() as h:
        read = text_tool("read", read_only=True)
        write = text_tool("write")
        h.registry.register(read)
        h.registry.register(write)
        assert h.registry.get("read") is read
        assert h.registry.get("nope") is None
        assert h.registry.names() == ("read", "write")
        assert h.registry.is_read_only("read")
        assert not h.registry.is_read_only("write")
        assert not h.registry.is_read_only("nope")


async def test_duplicate_names_are_rejected_naming_the_owner() -> None:
    async with tools_kernel() as h:
        first = text_tool("read")
        h.registry.register(first)
        with pytest.raises(ToolError) as caught:
            h.registry.register(text_tool("read", "other"))
        assert caught.value.code == DUPLICATE_TOOL
        assert "'read'" in caught.value.message
        assert "plugin 'tools'" in caught.value.message
        assert h.registry.get("read") is first


@pytest.mark.parametrize("name", ["", "has space", "dot.name", "x" * 65, "naïve"])
async def test_names_the_model_api_cannot_carry_are_rejected(name: str) -> None:
    async with tools_kernel() as h:
        with pytest.raises(ToolError) as caught:
            h.registry.register(
                text_tool("ok").__class__(
                    name=name,
                    description="d",
                    parameters={"type": "object"},
                    execute=text_tool("ok").execute,
                )
            )
        assert caught.value.code == INVALID_TOOL_NAME


@pytest.mark.parametrize(
    "parameters", [{"type": "string"}, {"properties": {}}, {"type": "object", "x": float("inf")}]
)
async def test_parameters_must_be_an_object_json_schema(parameters: JsonObject) -> None:
    async with tools_kernel() as h:
        tool = ToolDefinition(
            name="t", description="d", parameters=parameters, execute=text_tool("t").execute
        )
        with pytest.raises(ToolError) as caught:
            h.registry.register(tool)
        assert caught.value.code == INVALID_SCHEMA
        assert h.registry.get("t") is None


async def test_a_registration_leaves_with_the_registering_plugin() -> None:
    async with tools_kernel() as h:
        changes: list[None] = []
        h.ctx.on(TOOLS_CHANGE, changes.append)

        async def body(ctx: Context) -> None:
            ctx.require(TOOLS).register(text_tool("fs_read"), ctx=ctx)

        fiber = await h.ctx.plugin(plugin("fs", body))
        assert h.registry.names() == ("fs_read",)
        assert len(changes) == 1
        await fiber.dispose()
        assert h.registry.names() == ()
        assert len(changes) == 2
        h.registry.register(text_tool("fs_read"))
        assert h.registry.names() == ("fs_read",)


async def test_the_disposer_unregisters_once() -> None:
    async with tools_kernel() as h:
        changes: list[None] = []
        h.ctx.on(TOOLS_CHANGE, changes.append)
        dispose = h.registry.register(text_tool("a"))
        await dispose()
        await dispose()
        assert h.registry.get("a") is None
        assert len(changes) == 2


async def test_a_failing_change_listener_does_not_undo_the_registration() -> None:
    async with tools_kernel() as h:

        def explode(payload: None) -> None:
            raise RuntimeError("listener")

        h.ctx.on(TOOLS_CHANGE, explode)
        h.registry.register(text_tool("a"))
        assert h.registry.names() == ("a",)


async def test_schemas_are_deep_copies_without_functions() -> None:
    async with tools_kernel() as h:
        tool = define_tool(
            "edit",
            "edits",
            {"edits": Prop(type="array", items=Prop(type="string"))},
            text_tool("x").execute,
        )
        h.registry.register(tool)
        (schema,) = h.registry.schemas()
        assert schema == ToolSchema(name="edit", description="edits", parameters=tool.parameters)
        assert schema.parameters is not tool.parameters
        exported = schema.parameters["properties"]
        assert isinstance(exported, dict)
        exported["edits"] = "changed"
        assert h.registry.schemas()[0].parameters == tool.parameters


def _presenting_tool(*, raises: bool = False, returns_none: bool = False) -> ToolDefinition:
    def present_call(args: JsonObject) -> ToolCallView | None:
        if raises:
            raise RuntimeError("presenter bug")
        if returns_none:
            return None
        path = str(args["path"])
        return ToolCallView(
            title=f"Edit {path}",
            kind="edit",
            locations=(ToolLocation(path=path, line=3),),
            diffs=(FileDiff(path=path, old_text=None, new_text="x"),),
        )

    def present_result(args: JsonObject, result: ToolResult) -> ToolResultView | None:
        if raises:
            raise RuntimeError("presenter bug")
        if returns_none:
            return None
        return ToolResultView(title=f"Edited {args['path']}", kind="edit", summary="1 line")

    return define_tool(
        "edit",
        "edits",
        {"path": Prop(type="string", required=True)},
        text_tool("x").execute,
        present_call=present_call,
        present_result=present_result,
    )


RESULT = ToolResult(content=blocks("done"))


async def test_presenters_run_on_valid_arguments() -> None:
    async with tools_kernel() as h:
        h.registry.register(_presenting_tool())
        view = h.registry.present_call("edit", {"path": "a.py"})
        assert view.title == "Edit a.py"
        assert view.kind == "edit"
        assert view.locations == (ToolLocation(path="a.py", line=3),)
        assert view.diffs == (FileDiff(path="a.py", old_text=None, new_text="x"),)
        assert h.registry.present_result("edit", {"path": "a.py"}, RESULT) == ToolResultView(
            title="Edited a.py", kind="edit", summary="1 line"
        )


@pytest.mark.parametrize("arguments", [{}, {"path": 3}, "not json", None])
async def test_invalid_arguments_get_the_generic_views(arguments: object) -> None:
    async with tools_kernel() as h:
        h.registry.register(_presenting_tool())
        assert h.registry.present_call("edit", arguments) == ToolCallView(title="edit")
        assert h.registry.present_result("edit", arguments, RESULT) == ToolResultView(title="edit")


async def test_raising_or_silent_presenters_get_the_generic_views() -> None:
    async with tools_kernel() as h:
        h.registry.register(_presenting_tool(raises=True))
        assert h.registry.present_call("edit", {"path": "a"}) == ToolCallView(title="edit")
        assert h.registry.present_result("edit", {"path": "a"}, RESULT) == ToolResultView(
            title="edit"
        )
    async with tools_kernel() as h:
        h.registry.register(_presenting_tool(returns_none=True))
        assert h.registry.present_call("edit", {"path": "a"}) == ToolCallView(title="edit")
        assert h.registry.present_result("edit", {"path": "a"}, RESULT) == ToolResultView(
            title="edit"
        )


async def test_the_generic_result_view_keeps_what_the_call_view_said() -> None:
    async with tools_kernel() as h:
        tool = _presenting_tool()
        h.registry.register(
            ToolDefinition(
                name=tool.name,
                description=tool.description,
                parameters=tool.parameters,
                execute=tool.execute,
                present_call=tool.present_call,
            )
        )
        assert h.registry.present_result("edit", {"path": "a"}, RESULT) == ToolResultView(
            title="Edit a", kind="edit", locations=(ToolLocation(path="a", line=3),)
        )


async def test_unknown_tools_and_tools_without_presenters_get_generic_views() -> None:
    async with tools_kernel() as h:
        h.registry.register(text_tool("plain"))
        assert h.registry.present_call("plain", {}) == ToolCallView(title="plain", kind="other")
        assert h.registry.present_call("ghost", {}) == ToolCallView(title="ghost")
        assert h.registry.present_result("ghost", {}, RESULT) == ToolResultView(title="ghost")
