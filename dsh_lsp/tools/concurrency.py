"""Running one step's tool calls: in order, with runs of read-only calls overlapping (tools layer).

Calls run one after another, except that a run of consecutive calls to read-only tools runs
concurrently in one anyio task group (a call to any other tool is a barrier: it starts only
after everything before it finished, and nothing after it starts before it finished). Outcomes
come back in call order whatever order they finished in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import anyio

from .decisions import ExecutionOutcome
from .definition import ToolExecution
from .registry import ToolRegistry

OutcomeCallback = Callable[[int, ExecutionOutcome], None]
"""Told ``(index, outcome)`` as each call finishes, in completion order."""


async def run_tool_calls(
    registry: ToolRegistry,
    executions: Sequence[ToolExecution],
    *,
    on_outcome: OutcomeCallback | None = None,
) -> list[ExecutionOutcome]:
    """Execute ``executions`` through ``registry`` and return their outcomes in call order.

    Read-only status is read from the registry once, before the first call. ``on_outcome``
    (synchronous) learns of each finished call at once, so a caller that is cancelled midway
    knows which calls completed: cancellation propagates out of this function, and calls
    that never finished have no outcome. An exception from ``on_outcome`` propagates (it
    cancels the other calls of a concurrent run).
    """
    read_only = [registry.is_read_only(execution.name) for execution in executions]
    outcomes: list[ExecutionOutcome | None] = [None] * len(executions)

    async def run_one(index: int) -> None:
        outcome = await registry.execute(executions[index])
        outcomes[index] = outcome
        if on_outcome is not None:
            on_outcome(index, outcome)

    start = 0
    while start < len(executions):
        end = start + 1
        if read_only[start]:
            while end < len(executions) and read_only[end]:
                end += 1
        if end - start == 1:
            await run_one(start)
        else:
            async with anyio.create_task_group() as group:
                for index in range(start, end):
                    group.start_soon(run_one, index)
        start = end
    finished = [outcome for outcome in outcomes if outcome is not None]
    assert len(finished) == len(executions)
    return finished
