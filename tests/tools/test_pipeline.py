"""The execution pipeline: decisions, errors as results, post-execute, cancellation."""

from __future__ import annotations

import enum
import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import ClassVar, Self

import anyio
import pytest

from dsh_lsp.kernel import DshError
from dsh_lsp.llm import ExtensionBlock, JsonObject, JsonValue, TextBlock
from dsh_lsp.tools import (
    INVALID_TOOL_OUTPUT,
    TOOL_BLOCKED,
    TOOLS_POST_EXECUTE,
    TOOLS_PRE_EXECUTE,
    Accept,
    Allow,
    Block,
    Deny,
    ExecutionOutcome,
    PostExecutePayload,
    PostToolDecision,
    PreToolDecision,
    Prop,
    ToolErrorInfo,
    ToolExecution,
    ToolOutcome,
    ToolOutput,
    ToolResult,
    define_tool,
    parse_arguments,
)
from dsh_lsp.tools.errors import ToolError

from .support import (
    PostNext,
    PreNext,
    blocks,
    call,
    cancel_once,
    text_tool,
    texts,
    tools_kernel,
)


async def test_an_allowed_call_runs_with_validated_arguments() -> None:
    seen: list[tuple[JsonObject, ToolExecution]] = []

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutput:
        seen.append((args, execution))
        return ToolOutcome(content=blocks("read it"), meta={"lines": 3})

    tool = define_tool("read", "reads", {"path": Prop(type="string", required=True)}, execute)
    async with tools_kernel() as h:
        h.registry.register(tool)
        execution = call("read", {"path": "a.py", "extra": 1})
        outcome = await h.registry.execute(execution)
    assert outcome.result == ToolResult(content=blocks("read it"), meta={"lines": 3})
    assert outcome.additional_context == ()
    assert seen == [({"path": "a.py", "extra": 1}, execution)]


async def test_deny_becomes_an_error_result_and_the_tool_never_runs() -> None:
    ran: list[str] = []

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutput:
        ran.append("ran")
        return []

    async def deny(execution: ToolExecution, next_: PreNext) -> PreToolDecision:
        return Deny(reason="writes are off in plan mode")

    async with tools_kernel() as h:
        h.registry.register(define_tool("write", "w", {}, execute))
        h.ctx.on(TOOLS_PRE_EXECUTE, deny)
        outcome = await h.registry.execute(call("write"))
    assert ran == []
    assert outcome.result.is_error
    assert texts(outcome.result) == ["Error: writes are off in plan mode"]
    assert outcome.result.error == ToolErrorInfo(name="ToolDeniedError", code="TOOL_DENIED")


async def test_pre_execute_listeners_chain_and_next_defaults_to_allow() -> None:
    order: list[str] = []

    async def outer(execution: ToolExecution, next_: PreNext) -> PreToolDecision:
        order.append("outer")
        decision: PreToolDecision = await next_()
        order.append(f"outer saw {type(decision).__name__}")
        return decision

    async def inner(execution: ToolExecution, next_: PreNext) -> PreToolDecision:
        order.append(f"inner {execution.name}")
        return Allow()

    async with tools_kernel() as h:
        h.registry.register(text_tool("read"))
        h.ctx.on(TOOLS_PRE_EXECUTE, outer)
        h.ctx.on(TOOLS_PRE_EXECUTE, inner)
        outcome = await h.registry.execute(call("read"))
    assert texts(outcome.result) == ["ok"]
    assert order == ["outer", "inner read", "outer saw Allow"]


async def test_a_denied_result_still_passes_through_post_execute() -> None:
    seen: list[PostExecutePayload] = []

    async def deny(execution: ToolExecution, next_: PreNext) -> PreToolDecision:
        return Deny(reason="no")

    async def watch(payload: PostExecutePayload, next_: PostNext) -> PostToolDecision:
        seen.append(payload)
        return Accept(additional_context=blocks("denial noted"))

    async with tools_kernel() as h:
        h.registry.register(text_tool("read"))
        h.ctx.on(TOOLS_PRE_EXECUTE, deny)
        h.ctx.on(TOOLS_POST_EXECUTE, watch)
        execution = call("read")
        outcome = await h.registry.execute(execution)
    assert [payload.exec for payload in seen] == [execution]
    assert texts(seen[0].result) == ["Error: no"]
    assert outcome.additional_context == blocks("denial noted")


async def test_a_failing_tool_becomes_an_error_result_with_error_info() -> None:
    async def dsh_failure(args: JsonObject, execution: ToolExecution) -> ToolOutput:
        raise DshError("disk on fire", code="FS_ON_FIRE")

    async def plain_failure(args: JsonObject, execution: ToolExecution) -> ToolOutput:
        raise ValueError("bad value")

    async def silent_failure(args: JsonObject, execution: ToolExecution) -> ToolOutput:
        raise KeyError

    async with tools_kernel() as h:
        h.registry.register(define_tool("a", "a", {}, dsh_failure))
        h.registry.register(define_tool("b", "b", {}, plain_failure))
        h.registry.register(define_tool("c", "c", {}, silent_failure))
        a = (await h.registry.execute(call("a"))).result
        b = (await h.registry.execute(call("b"))).result
        c = (await h.registry.execute(call("c"))).result
    assert a == ToolResult(
        content=blocks("Error: disk on fire"),
        is_error=True,
        error=ToolErrorInfo(name="DshError", code="FS_ON_FIRE"),
    )
    assert b == ToolResult(content=blocks("Error: bad value"), is_error=True)
    assert c == ToolResult(content=blocks("Error: KeyError"), is_error=True)


async def test_bad_arguments_become_an_error_result_before_the_tool_runs() -> None:
    async with tools_kernel() as h:
        h.registry.register(text_tool("read", required=True))
        wrong = (await h.registry.execute(call("read", {"path": 3}))).result
        raw = (await h.registry.execute(call("read", parse_arguments('{"path": NaN}')))).result
    assert wrong == ToolResult(
        content=blocks('Error: invalid arguments: "path" must be a string'),
        is_error=True,
        error=ToolErrorInfo(name="ToolArgsError", code="INVALID_ARGS"),
    )
    assert texts(raw) == ["Error: invalid arguments: not valid JSON (NaN is not valid JSON)"]


async def test_an_unknown_tool_becomes_an_unknown_tool_result() -> None:
    async with tools_kernel() as h:
        h.registry.register(text_tool("read"))
        h.registry.register(text_tool("write"))
        result = (await h.registry.execute(call("reed"))).result
    assert result == ToolResult(
        content=blocks("Error: unknown tool 'reed'; available tools: read, write"),
        is_error=True,
        error=ToolErrorInfo(name="ToolNotFoundError", code="UNKNOWN_TOOL"),
    )


NOT_JSON_META = ToolOutcome(content=(), meta={"x": {1, 2}})  # type: ignore[dict-item]
"""Meta holding a set: typing forbids it, so the registry must catch it at run time."""


class Level(enum.IntEnum):
    LOW = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class PairBlock(ExtensionBlock):
    """An extension block whose ``to_json`` leaks a tuple (JSON-encodable, not lossless)."""

    kind: ClassVar[str] = "test-pair"

    def to_json(self) -> dict[str, JsonValue]:
        return {"pair": (1, 2)}  # typing allows a tuple (a Sequence); the session does not

    @classmethod
    def from_json(cls, data: JsonObject) -> Self:
        return cls()


UNLOGGABLE_OUTPUTS: list[object] = [
    ToolOutcome(content=(), meta={"a": (1, 2)}),
    ToolOutcome(content=(), meta={"level": Level.LOW}),
    ToolOutcome(content=(), meta=OrderedDict(a=1)),
    ToolOutcome(content=(), meta={"inner": {1: "x"}}),  # type: ignore[dict-item]
    ToolOutcome(content=(), meta={"inner": OrderedDict(a=1)}),
    ToolOutcome(content=(), meta={"x": math.nan}),
    [PairBlock()],
]
"""Output ``dumps_compact`` accepts (and typing, for tuples and subclasses) but the session
log refuses."""


@pytest.mark.parametrize(
    "output", ["text", [TextBlock(text="a"), "b"], NOT_JSON_META, *UNLOGGABLE_OUTPUTS]
)
async def test_malformed_tool_output_becomes_an_error_result(output: object) -> None:
    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutput:
        # Deliberately not a ToolOutput: the registry must catch what typing would.
        return output  # type: ignore[return-value]

    async with tools_kernel() as h:
        h.registry.register(define_tool("t", "t", {}, execute))
        result = (await h.registry.execute(call("t"))).result
    assert result.is_error
    assert result.error == ToolErrorInfo(name="ToolError", code=INVALID_TOOL_OUTPUT)
    assert result.meta is None


async def test_unloggable_meta_is_reported_with_its_path() -> None:
    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutput:
        return ToolOutcome(content=blocks("x"), meta={"a": {"b": (1, 2)}})

    async with tools_kernel() as h:
        h.registry.register(define_tool("t", "t", {}, execute))
        result = (await h.registry.execute(call("t"))).result
    assert texts(result) == [
        "Error: tool 't' returned a result the session cannot log "
        "(at $.meta.a.b: tuple is not a JSON type)"
    ]


@pytest.mark.parametrize(
    "decision",
    [
        Accept(content=(PairBlock(),)),
        Accept(additional_context=(PairBlock(),)),
        Block(feedback=("not", "text")),  # type: ignore[arg-type]  # the defect under test
    ],
    ids=["content", "context", "feedback"],
)
async def test_unloggable_post_execute_output_becomes_an_error_result(
    decision: PostToolDecision,
) -> None:
    outcome = await _post_executed(decision, ToolOutcome(content=blocks("fine"), meta={"m": 1}))
    assert outcome.result.is_error
    assert outcome.result.error == ToolErrorInfo(name="ToolError", code=INVALID_TOOL_OUTPUT)
    assert outcome.result.meta is None
    assert outcome.additional_context == ()


async def _post_executed(decision: PostToolDecision, output: ToolOutcome) -> ExecutionOutcome:
    """Run tool ``t`` answering ``output`` under a post-execute listener that decides
    ``decision``."""

    async def rewrite(payload: PostExecutePayload, next_: PostNext) -> PostToolDecision:
        return decision

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutput:
        return output

    async with tools_kernel() as h:
        h.registry.register(define_tool("t", "t", {}, execute))
        h.ctx.on(TOOLS_POST_EXECUTE, rewrite)
        return await h.registry.execute(call("t"))


async def test_accept_with_content_replaces_what_the_model_reads() -> None:
    outcome = await _post_executed(
        Accept(content=blocks("[redacted]"), additional_context=blocks("note")),
        ToolOutcome(content=blocks("secret"), meta={"m": 1}),
    )
    assert outcome.result == ToolResult(content=blocks("[redacted]"), meta={"m": 1})
    assert outcome.additional_context == blocks("note")


async def test_block_turns_the_result_into_an_error_with_the_feedback() -> None:
    async def block(payload: PostExecutePayload, next_: PostNext) -> PostToolDecision:
        assert texts(payload.result) == ["ok"]
        return Block(
            feedback="Run the tests before editing again.", additional_context=blocks("ctx")
        )

    async with tools_kernel() as h:
        h.registry.register(text_tool("t"))
        h.ctx.on(TOOLS_POST_EXECUTE, block)
        outcome = await h.registry.execute(call("t"))
    assert outcome.result == ToolResult(
        content=blocks("Run the tests before editing again."),
        is_error=True,
        error=ToolErrorInfo(name="ToolDeniedError", code=TOOL_BLOCKED),
    )
    assert outcome.additional_context == blocks("ctx")


async def test_post_execute_sees_failures_too() -> None:
    seen: list[ToolResult] = []

    async def watch(payload: PostExecutePayload, next_: PostNext) -> PostToolDecision:
        seen.append(payload.result)
        decision: PostToolDecision = await next_()
        return decision

    async with tools_kernel() as h:
        h.ctx.on(TOOLS_POST_EXECUTE, watch)
        outcome = await h.registry.execute(call("ghost"))
    assert seen == [outcome.result]
    assert outcome.result.error is not None
    assert outcome.result.error.code == "UNKNOWN_TOOL"


@pytest.mark.parametrize("event", ["pre", "post"])
async def test_a_throwing_listener_becomes_an_error_result(event: str) -> None:
    ran: list[str] = []

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutput:
        ran.append("ran")
        return blocks("fine")

    async def pre(execution: ToolExecution, next_: PreNext) -> PreToolDecision:
        raise ToolError("policy crashed", code="POLICY")

    async def post(payload: PostExecutePayload, next_: PostNext) -> PostToolDecision:
        raise ToolError("policy crashed", code="POLICY")

    async with tools_kernel() as h:
        h.registry.register(define_tool("t", "t", {}, execute))
        if event == "pre":
            h.ctx.on(TOOLS_PRE_EXECUTE, pre)
        else:
            h.ctx.on(TOOLS_POST_EXECUTE, post)
        outcome = await h.registry.execute(call("t"))
    assert outcome.result == ToolResult(
        content=blocks("Error: policy crashed"),
        is_error=True,
        error=ToolErrorInfo(name="ToolError", code="POLICY"),
    )
    assert ran == ([] if event == "pre" else ["ran"])


async def test_a_listener_returning_a_non_decision_becomes_an_error_result() -> None:
    async def wrong(execution: ToolExecution, next_: PreNext) -> PreToolDecision:
        return "allow"  # type: ignore[return-value]  # the mistake under test

    async with tools_kernel() as h:
        h.registry.register(text_tool("t"))
        h.ctx.on(TOOLS_PRE_EXECUTE, wrong)
        outcome = await h.registry.execute(call("t"))
    assert outcome.result.is_error


async def test_cancellation_of_a_running_tool_propagates() -> None:
    started = anyio.Event()
    tool_cancelled = anyio.Event()
    post_calls: list[PostExecutePayload] = []

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutput:
        started.set()
        try:
            await anyio.Event().wait()
        except anyio.get_cancelled_exc_class():
            tool_cancelled.set()
            raise
        return []

    async def post(payload: PostExecutePayload, next_: PostNext) -> PostToolDecision:
        post_calls.append(payload)
        return Accept()

    async with tools_kernel() as h:
        h.registry.register(define_tool("slow", "s", {}, execute))
        h.ctx.on(TOOLS_POST_EXECUTE, post)
        assert await cancel_once(lambda: h.registry.execute(call("slow")), started)
    assert tool_cancelled.is_set()
    assert post_calls == []


async def test_cancellation_inside_a_pre_execute_listener_propagates() -> None:
    waiting = anyio.Event()

    async def gate(execution: ToolExecution, next_: PreNext) -> PreToolDecision:
        waiting.set()
        await anyio.Event().wait()
        return Allow()

    async with tools_kernel() as h:
        h.registry.register(text_tool("t"))
        h.ctx.on(TOOLS_PRE_EXECUTE, gate)
        assert await cancel_once(lambda: h.registry.execute(call("t")), waiting)
