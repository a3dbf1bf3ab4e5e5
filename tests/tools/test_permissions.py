"""Ask decisions go to the PERMISSIONS service, or are refused when nobody can approve."""

from __future__ import annotations

import pytest

from dsh_lsp.llm import JsonObject
from dsh_lsp.tools import (
    INVALID_PERMISSION_OUTCOME,
    PERMISSION_CANCELLED,
    PERMISSION_UNAVAILABLE,
    PERMISSIONS,
    TOOLS_PRE_EXECUTE,
    PermissionOutcome,
    Prop,
    ToolCallView,
    ToolErrorInfo,
    ToolExecution,
    ToolOutput,
    define_tool,
)

from .permission_support import ScriptedPermissions, ask
from .support import blocks, call, text_tool, texts, tools_kernel


async def test_ask_without_a_provider_is_refused_with_a_clear_reason() -> None:
    async with tools_kernel() as h:
        h.registry.register(text_tool("bash"))
        h.ctx.on(TOOLS_PRE_EXECUTE, ask("runs a shell command"))
        result = (await h.registry.execute(call("bash"))).result
    assert result.is_error
    assert texts(result) == [
        "Error: Permission required to run bash but no one can approve it here"
        " (runs a shell command)"
    ]
    assert result.error == ToolErrorInfo(name="ToolDeniedError", code=PERMISSION_UNAVAILABLE)


async def test_the_service_sees_the_call_its_view_and_the_reason() -> None:
    def present(args: JsonObject) -> ToolCallView:
        return ToolCallView(title=f"Run {args['cmd']}", kind="execute")

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutput:
        return blocks("ran")

    tool = define_tool(
        "bash", "b", {"cmd": Prop(type="string", required=True)}, execute, present_call=present
    )
    service = ScriptedPermissions(answers=["allow_once"])
    async with tools_kernel() as h:
        h.registry.register(tool)
        h.ctx.provide(PERMISSIONS, service)
        h.ctx.on(TOOLS_PRE_EXECUTE, ask("shell"))
        execution = call("bash", {"cmd": "ls"})
        result = (await h.registry.execute(execution)).result
    assert texts(result) == ["ran"]
    (request,) = service.requests
    assert request.execution is execution
    assert request.view == ToolCallView(title="Run ls", kind="execute")
    assert request.reason == "shell"


@pytest.mark.parametrize(
    ("answer", "text", "code"),
    [
        ("reject_once", "Error: the user declined to run bash", "TOOL_DENIED"),
        (
            "reject_always",
            "Error: the user declined to run bash for this session",
            "TOOL_DENIED",
        ),
        (
            "cancelled",
            "Error: the permission request for bash was cancelled",
            PERMISSION_CANCELLED,
        ),
    ],
)
async def test_refusals_become_error_results(
    answer: PermissionOutcome, text: str, code: str
) -> None:
    async with tools_kernel() as h:
        h.registry.register(text_tool("bash"))
        h.ctx.provide(PERMISSIONS, ScriptedPermissions(answers=[answer]))
        h.ctx.on(TOOLS_PRE_EXECUTE, ask())
        result = (await h.registry.execute(call("bash"))).result
    assert texts(result) == [text]
    assert result.error == ToolErrorInfo(name="ToolDeniedError", code=code)


async def test_allow_once_asks_again_and_allow_always_is_remembered() -> None:
    service = ScriptedPermissions(answers=["allow_once", "allow_always"])
    async with tools_kernel() as h:
        h.registry.register(text_tool("bash"))
        h.registry.register(text_tool("edit"))
        h.ctx.provide(PERMISSIONS, service)
        h.ctx.on(TOOLS_PRE_EXECUTE, ask())
        for _ in range(4):
            assert not (await h.registry.execute(call("bash"))).result.is_error
        assert len(service.requests) == 2
        # The standing answer is per tool: another tool is asked about afresh.
        service.answers.append("reject_once")
        assert (await h.registry.execute(call("edit"))).result.is_error
        assert len(service.requests) == 3


async def test_reject_always_is_remembered() -> None:
    service = ScriptedPermissions(answers=["reject_always"])
    async with tools_kernel() as h:
        h.registry.register(text_tool("bash"))
        h.ctx.provide(PERMISSIONS, service)
        h.ctx.on(TOOLS_PRE_EXECUTE, ask())
        first = (await h.registry.execute(call("bash"))).result
        second = (await h.registry.execute(call("bash"))).result
    assert first == second
    assert first.is_error
    assert len(service.requests) == 1


async def test_nobody_is_asked_about_an_unknown_tool_or_bad_arguments() -> None:
    service = ScriptedPermissions(answers=[])
    async with tools_kernel() as h:
        h.registry.register(text_tool("bash", required=True))
        h.ctx.provide(PERMISSIONS, service)
        h.ctx.on(TOOLS_PRE_EXECUTE, ask())
        ghost = (await h.registry.execute(call("ghost"))).result
        bad = (await h.registry.execute(call("bash", {}))).result
    assert service.requests == []
    assert ghost.error == ToolErrorInfo(name="ToolNotFoundError", code="UNKNOWN_TOOL")
    assert bad.error == ToolErrorInfo(name="ToolArgsError", code="INVALID_ARGS")


async def test_a_failing_or_confused_service_becomes_an_error_result() -> None:
    class Broken:
        async def request(
            self, exec: ToolExecution, view: ToolCallView, reason: str | None
        ) -> PermissionOutcome:
            raise ConnectionError("editor went away")

    async with tools_kernel() as h:
        h.registry.register(text_tool("bash"))
        provided = h.ctx.provide(PERMISSIONS, Broken())
        h.ctx.on(TOOLS_PRE_EXECUTE, ask())
        broken = (await h.registry.execute(call("bash"))).result
        await provided()
        # Deliberately outside the PermissionOutcome literal.
        h.ctx.provide(PERMISSIONS, ScriptedPermissions(answers=["maybe"]))  # type: ignore[list-item]
        confused = (await h.registry.execute(call("bash"))).result
    assert texts(broken) == ["Error: editor went away"]
    assert confused.error == ToolErrorInfo(name="ToolError", code=INVALID_PERMISSION_OUTCOME)
