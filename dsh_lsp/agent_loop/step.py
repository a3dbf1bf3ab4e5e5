"""One step of a turn: steering, assembly, pre-step, the model call, tools, step end (agent_loop).

Order: drain steering (``steering/message``, outside the step) → assemble the system prompt
(sections, then the agent's own prompt) → ``agent/pre-step`` → ``step/start`` → model call
(``model_call``) → tool dispatch (``dispatch``) → post-execute and injected context → drain
steering again (inside the step) → ``step/end``, then a background flush of the step's events.
The cancel marker is checked at each window
between those phases; whatever is being awaited when ``cancel`` comes is cancelled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from dsh_lsp.agent import AGENT_CONTEXT_OVERFLOW, AGENT_PRE_STEP, ContextOverflow, PreStep
from dsh_lsp.llm import LlmCode, LlmError, ToolCallBlock
from dsh_lsp.session import SteeringMessagePayload, StepEndPayload, StepStartPayload
from dsh_lsp.tools import PromptAssembly, render_prompt

from .closing import log_waiting_context, write_storable
from .dispatch import dispatch_calls
from .flush import flush_soon
from .model_call import call_model
from .turn_state import TurnInterrupted, TurnState

if TYPE_CHECKING:
    from .loop_agent import LoopAgent


def check_cancel(agent: LoopAgent) -> None:
    """A cancellation window: raises TurnInterrupted when cancel or disposal was requested."""
    if agent.cancel_requested:
        raise TurnInterrupted


def log_steering(agent: LoopAgent, state: TurnState) -> bool:
    """Drain the steering FIFO into ``steering/message`` events; True when any was logged.

    Raises what ``Session.append`` raises (messages after a failing one stay unlogged).
    """
    messages = agent.inbox.drain_steering()
    for message in messages:
        write_storable(
            agent.session,
            SteeringMessagePayload(
                turn=state.turn, content=tuple(message.content), source=message.source
            ),
            surface_op="append",
        )
    return bool(messages)


async def _call_with_room(
    agent: LoopAgent, state: TurnState, assembly: PromptAssembly, system: str, step: int
) -> tuple[ToolCallBlock, ...]:
    """``call_model``; when the provider refuses the request as too long before anything
    streamed, ``agent/context-overflow`` may make room (compaction) and the call is retried
    once. Raises what ``call_model`` raises."""
    size = len(agent.session.events)
    try:
        return await call_model(agent, state, assembly, system)
    except LlmError as exc:
        if exc.code != LlmCode.CONTEXT_WINDOW_EXCEEDED or len(agent.session.events) != size:
            raise
        overflow = ContextOverflow(agent=agent, turn=state.turn, step=step, error=exc)
        if not await agent.services.ctx.serial(AGENT_CONTEXT_OVERFLOW, overflow):
            raise
    check_cancel(agent)
    return await call_model(agent, state, assembly, system)


async def run_step(agent: LoopAgent, state: TurnState, cancel: anyio.Event) -> bool:
    """Run the next step; returns the default continuation (True: it ran tool calls or was
    steered). Raises TurnInterrupted at a window, and whatever fails the step."""
    services = agent.services
    step = state.begin_step()
    log_steering(agent, state)
    check_cancel(agent)
    assembly = await services.system_prompt.assemble()
    system = "\n\n".join(
        text for text in (render_prompt(assembly), agent.options.system_prompt or "") if text
    )
    check_cancel(agent)
    pre_step = PreStep(agent=agent, turn=state.turn, step=step, system_prompt=system)
    await services.ctx.serial(AGENT_PRE_STEP, pre_step)
    check_cancel(agent)
    agent.session.write(StepStartPayload(turn=state.turn, step=step))
    check_cancel(agent)
    calls = await _call_with_room(agent, state, assembly, system, step)
    if calls:
        await dispatch_calls(agent, state, calls, cancel)
    log_waiting_context(agent, state)
    steered = log_steering(agent, state)
    agent.session.write(StepEndPayload(turn=state.turn, step=step))
    flush_soon(agent)
    return bool(calls) or steered
