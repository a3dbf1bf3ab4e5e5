"""Tool dispatch for one step: log the calls, run them, log results in call order (agent_loop).

Every ``tool/call`` of the step is logged first, in call order, and stored — an awaited flush
unless every call is read-only (then a background one) — so a call that may change the
user's files is on disk before it runs; then the calls run through
the tools package's ``run_tool_calls`` (sequential, except that consecutive read-only calls
overlap). Results are logged in call order as soon as every earlier call has one, each citing
its ``tool/call``, and a background flush is requested after each. Post-execute
``additional_context`` is held until all results are logged.
Cancellation stops the run between calls (the turn's cancel scope is cancelled and the
loop's ``tools/pre-execute`` checkpoint delivers it before the next call starts); calls left
without a result are answered when the turn closes (``closing``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from dsh_lsp.llm import ToolCallBlock
from dsh_lsp.tools import ExecutionOutcome, ToolExecution, parse_arguments, run_tool_calls

from .closing import log_call, log_result
from .flush import flush_soon, make_durable
from .turn_state import TurnInterrupted, TurnState

if TYPE_CHECKING:
    from .loop_agent import LoopAgent


async def dispatch_calls(
    agent: LoopAgent,
    state: TurnState,
    calls: tuple[ToolCallBlock, ...],
    cancel: anyio.Event,
) -> None:
    """Log and run ``calls``; see the module docstring. ``cancel`` is set when the agent is
    cancelled (for tools that poll it).

    Raises TurnInterrupted when the agent was cancelled before the first call, cancellation
    when it is cancelled during the run, what logging a call or result raises, and the
    ``SessionError`` of an awaited flush that failed (no call has run then).
    """
    if agent.cancel_requested:
        raise TurnInterrupted
    for call in calls:
        log_call(agent, state, call)
    tools = agent.services.tools
    if all(tools.is_read_only(call.name) for call in calls):
        flush_soon(agent)  # nothing it runs can change a file: the write may overlap the calls
    else:
        await make_durable(agent)  # a call that may change files is on disk before it runs
    executions = [
        ToolExecution(
            call_id=call.id,
            name=call.name,
            arguments=parse_arguments(call.arguments),
            session=agent.session,
            cancel=cancel,
        )
        for call in calls
    ]
    released = 0

    def on_outcome(index: int, outcome: ExecutionOutcome) -> None:
        nonlocal released
        state.outcomes[calls[index].id] = outcome
        while released < len(calls) and calls[released].id in state.outcomes:
            call = calls[released]
            released += 1
            done = state.outcomes[call.id]
            if done.additional_context:
                state.additional_context.append(done.additional_context)
            log_result(agent, state, call, done.result)
        flush_soon(agent)  # the client sees a result completed once it is stored

    await run_tool_calls(agent.services.tools, executions, on_outcome=on_outcome)
