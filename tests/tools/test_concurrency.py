"""run_tool_calls: consecutive read-only calls overlap; any other call is a barrier."""

from __future__ import annotations

from dataclasses import dataclass, field

import anyio
import anyio.lowlevel

from dsh_lsp.llm import JsonObject
from dsh_lsp.tools import (
    ExecutionOutcome,
    ToolDefinition,
    ToolExecution,
    ToolOutput,
    define_tool,
    run_tool_calls,
)

from .support import blocks, call, cancel_once, texts, tools_kernel

GUARD_SECONDS = 5
"""Only bounds a failing test; passing tests never wait on it."""


@dataclass(slots=True)
class Tracker:
    """Counts calls in flight and logs starts and ends."""

    in_flight: int = 0
    most: int = 0
    log: list[str] = field(default_factory=list)

    def enter(self, name: str) -> None:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        self.log.append(f"start {name}")

    def leave(self, name: str) -> None:
        self.in_flight -= 1
        self.log.append(f"end {name}")


def tracked(name: str, tracker: Tracker, *, read_only: bool) -> ToolDefinition:
    """A tool that yields to the scheduler a few times while counted as in flight."""

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutput:
        tracker.enter(execution.call_id)
        for _ in range(5):
            await anyio.lowlevel.checkpoint()
        tracker.leave(execution.call_id)
        return blocks(execution.call_id)

    return define_tool(name, name, {}, execute, read_only=read_only)


async def test_two_read_only_calls_overlap() -> None:
    started = {"r1": anyio.Event(), "r2": anyio.Event()}
    other = {"r1": "r2", "r2": "r1"}

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutput:
        started[execution.call_id].set()
        # Finishes only once the other call has started: both must be running at once.
        with anyio.fail_after(GUARD_SECONDS):
            await started[other[execution.call_id]].wait()
        return blocks(execution.call_id)

    async with tools_kernel() as h:
        h.registry.register(define_tool("read", "r", {}, execute, read_only=True))
        outcomes = await run_tool_calls(
            h.registry, [call("read", call_id="r1"), call("read", call_id="r2")]
        )
    assert [texts(outcome.result) for outcome in outcomes] == [["r1"], ["r2"]]


async def test_outcomes_come_back_in_call_order_whatever_finished_first() -> None:
    second_done = anyio.Event()
    finished: list[int] = []

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutput:
        if execution.call_id == "first":
            with anyio.fail_after(GUARD_SECONDS):
                await second_done.wait()
        return blocks(execution.call_id)

    def record(index: int, outcome: ExecutionOutcome) -> None:
        finished.append(index)
        if index == 1:
            second_done.set()

    async with tools_kernel() as h:
        h.registry.register(define_tool("read", "r", {}, execute, read_only=True))
        outcomes = await run_tool_calls(
            h.registry,
            [call("read", call_id="first"), call("read", call_id="second")],
            on_outcome=record,
        )
    assert finished == [1, 0]
    assert [texts(outcome.result) for outcome in outcomes] == [["first"], ["second"]]


async def test_a_write_call_is_a_barrier() -> None:
    tracker = Tracker()
    async with tools_kernel() as h:
        h.registry.register(tracked("read", tracker, read_only=True))
        h.registry.register(tracked("write", tracker, read_only=False))
        calls = [
            call("read", call_id="r1"),
            call("read", call_id="r2"),
            call("write", call_id="w"),
            call("read", call_id="r3"),
        ]
        outcomes = await run_tool_calls(h.registry, calls)
    assert [texts(outcome.result) for outcome in outcomes] == [["r1"], ["r2"], ["w"], ["r3"]]
    assert tracker.most == 2
    assert sorted(tracker.log[:2]) == ["start r1", "start r2"]
    assert sorted(tracker.log[2:4]) == ["end r1", "end r2"]
    assert tracker.log[4:] == ["start w", "end w", "start r3", "end r3"]


async def test_calls_of_other_tools_run_one_at_a_time() -> None:
    tracker = Tracker()
    async with tools_kernel() as h:
        h.registry.register(tracked("write", tracker, read_only=False))
        h.registry.register(tracked("read", tracker, read_only=True))
        calls = [call("write", call_id=f"w{i}") for i in range(3)] + [
            call("read", call_id="r"),
            call("ghost", call_id="g"),
            call("read", call_id="r2"),
        ]
        outcomes = await run_tool_calls(h.registry, calls)
    assert tracker.most == 1
    assert tracker.log == [
        "start w0",
        "end w0",
        "start w1",
        "end w1",
        "start w2",
        "end w2",
        "start r",
        "end r",
        "start r2",
        "end r2",
    ]
    assert outcomes[4].result.is_error


async def test_no_calls_no_outcomes() -> None:
    async with tools_kernel() as h:
        assert await run_tool_calls(h.registry, []) == []


async def test_cancellation_propagates_and_on_outcome_knows_what_finished() -> None:
    blocked = anyio.Event()
    finished: list[int] = []

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutput:
        if execution.call_id == "slow":
            blocked.set()
            await anyio.Event().wait()
        return blocks(execution.call_id)

    async with tools_kernel() as h:
        h.registry.register(define_tool("t", "t", {}, execute))
        calls = [call("t", call_id="fast"), call("t", call_id="slow"), call("t", call_id="never")]
        assert await cancel_once(
            lambda: run_tool_calls(
                h.registry, calls, on_outcome=lambda index, outcome: finished.append(index)
            ),
            blocked,
        )
    assert finished == [0]
