"""Edit labels: a provider working for a tool call sees that call's title and policy."""

from __future__ import annotations

from dsh_lsp.kernel import Kernel
from dsh_lsp.llm import CallId, ContentBlock, JsonObject, TextBlock
from dsh_lsp.server.editor_fs.edit_labels import current_label, label_listeners
from dsh_lsp.server.editor_fs.workspace_edits import EditLabel
from dsh_lsp.tools import (
    TOOLS,
    TOOLS_POST_EXECUTE,
    TOOLS_PRE_EXECUTE,
    Prop,
    ToolCallView,
    ToolExecution,
    ToolsPlugin,
    define_tool,
)


async def test_the_running_call_labels_its_edits() -> None:
    seen: list[EditLabel] = []
    confirm = [False]

    async def execute(args: JsonObject, execution: ToolExecution) -> list[ContentBlock]:
        seen.append(current_label("fallback"))
        return [TextBlock(text="ok")]

    def present(args: JsonObject) -> ToolCallView:
        return ToolCallView(title=f"Edit {args['path']}", kind="edit")

    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(ToolsPlugin)
        tools = ctx.require(TOOLS)
        params = {"path": Prop(type="string", required=True)}
        tools.register(define_tool("touch", "Touch a file.", params, execute, present_call=present))
        before, after = label_listeners(tools, lambda: confirm[0])
        ctx.on(TOOLS_PRE_EXECUTE, before)
        ctx.on(TOOLS_POST_EXECUTE, after)
        await tools.execute(
            ToolExecution(call_id=CallId("1"), name="touch", arguments={"path": "a.py"})
        )
        confirm[0] = True
        titled = ToolExecution(
            call_id=CallId("2"), name="touch", arguments={"path": "b.py"}, title="Custom"
        )
        await tools.execute(titled)
    assert seen == [EditLabel(title="Edit a.py"), EditLabel(title="Custom", confirm=True)]
    assert current_label("outside") == EditLabel(title="outside")
