"""Tool results the log cannot hold never leave a call unanswered in the model's history."""

from __future__ import annotations

import enum
from collections import OrderedDict
from collections.abc import Sequence

import anyio
import pytest

from dsh_lsp.llm import JsonObject, LlmRequest, TextBlock
from dsh_lsp.testing import ToolCallSpec
from dsh_lsp.testing.scripted_model import text_reply, tool_reply
from dsh_lsp.tools import INVALID_TOOL_OUTPUT, ToolExecution, ToolOutcome, define_tool
from tests.session.scenarios import unanswered_calls

from .harness import loop_harness, of_type, reasons


class Level(enum.IntEnum):
    LOW = 1


def assert_valid(requests: Sequence[LlmRequest]) -> None:
    for request in requests:
        assert unanswered_calls(request.messages) == set()


@pytest.mark.parametrize(
    "meta",
    [
        {"a": (1, 2)},
        {"level": Level.LOW},
        OrderedDict(a=1),
        {"inner": {1: "x"}},
    ],
    ids=["tuple", "int-enum", "ordered-dict", "int-key"],
)
async def test_meta_that_is_not_lossless_json_becomes_an_error_result(meta: object) -> None:
    async def run(args: JsonObject, call: ToolExecution) -> ToolOutcome:
        # Deliberately not JsonObject: the pipeline must catch what typing would.
        return ToolOutcome(content=(TextBlock(text="x"),), meta=meta)  # type: ignore[arg-type]

    async with loop_harness(
        tool_reply(ToolCallSpec(id="c1", name="t", arguments="{}")),
        text_reply("after the tool"),
        text_reply("second turn"),
    ) as h:
        h.tools.register(define_tool("t", "t", {}, run))
        agent, _ = await h.create()
        agent.send("go")
        await agent.when_idle()
        agent.send("again")
        await agent.when_idle()
        session = agent.session
        assert reasons(session) == ["completed", "completed"]
        [result] = of_type(session, "tool/result")
        assert result["isError"] is True
        assert result["error"] == {"name": "ToolError", "code": INVALID_TOOL_OUTPUT}
        assert "meta" not in result
        assert unanswered_calls(session.derive_messages()) == set()
        assert len(h.model.requests) == 3
        assert_valid(h.model.requests)


async def test_a_result_that_stops_being_loggable_is_answered_with_a_synthetic_error() -> None:
    """Two overlapping read-only calls: the second finishes first (its result waits for the
    first's) and the first then corrupts the second's meta, so logging it fails."""
    shared: dict[str, object] = {"ok": 1}
    second_done = anyio.Event()

    async def first(args: JsonObject, call: ToolExecution) -> list[TextBlock]:
        await second_done.wait()
        shared["bad"] = (1, 2)
        return [TextBlock(text="first")]

    async def second(args: JsonObject, call: ToolExecution) -> ToolOutcome:
        second_done.set()
        # Any-typed on purpose: the meta is valid now and corrupted later.
        return ToolOutcome(content=(TextBlock(text="second"),), meta=shared)  # type: ignore[arg-type]

    async with loop_harness(
        tool_reply(
            ToolCallSpec(id="c1", name="first", arguments="{}"),
            ToolCallSpec(id="c2", name="second", arguments="{}"),
        ),
        text_reply("next turn"),
    ) as h:
        h.tools.register(define_tool("first", "f", {}, first, read_only=True))
        h.tools.register(define_tool("second", "s", {}, second, read_only=True))
        agent, _ = await h.create()
        agent.send("go")
        await agent.when_idle()
        session = agent.session
        assert reasons(session) == ["error"]
        results = of_type(session, "tool/result")
        assert [r["callId"] for r in results] == ["c1", "c2"]
        assert results[1]["isError"] is True
        assert results[1]["error"] == {"name": "ToolResultUnlogged", "code": "RESULT_UNLOGGABLE"}
        assert "meta" not in results[1]
        assert unanswered_calls(session.derive_messages()) == set()
        agent.send("again")
        await agent.when_idle()
        assert reasons(session) == ["error", "completed"]
        assert_valid(h.model.requests)
