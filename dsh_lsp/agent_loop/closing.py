"""Closing a turn: answer open calls, log waiting context, end step and turn (agent_loop).

Runs after the turn body finished, failed or was interrupted, and decides from the log what is
still owed (an append whose listener raised is logged all the same). Every tool call of the
current step gets a result so the next request is a valid transcript: a finished call gets
its real result; a call that was cut off or never started gets a synthetic error result
(``error{name: "ToolCallSkipped", code: "ABORTED" | "TURN_FAILED"}``), its ``tool/call`` logged
first if it was not. A finished call whose real result cannot be logged (the session refuses
its data) gets a synthetic error result without ``meta`` instead
(``error{name: "ToolResultUnlogged", code: "RESULT_UNLOGGABLE"}``), so the call never stays
unanswered. Each closing append is attempted even if an earlier one raised.

Calls and results are written through ``write_storable``: tool arguments and results (file
contents a tool read) holding unpaired surrogates are stored with U+FFFD in their place.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVarTuple

from dsh_lsp.agent import InboxMessage
from dsh_lsp.llm import PluginSource, TextBlock, ToolCallBlock
from dsh_lsp.session import (
    EventPayload,
    Session,
    SessionError,
    SessionEvent,
    StepEndPayload,
    SurfaceOp,
    ToolCallPayload,
    ToolResultPayload,
    TurnEndPayload,
    TurnEndReason,
    result_error,
    storable,
)
from dsh_lsp.tools import ToolErrorInfo, ToolResult

from .injection import log_context
from .turn_state import TurnState

if TYPE_CHECKING:
    from .loop_agent import LoopAgent

_log = logging.getLogger(__name__)

Ts = TypeVarTuple("Ts")

TOOLS_SOURCE = PluginSource(plugin="tools")
"""The source of post-execute ``additional_context`` logged after a step's results."""


def _contained(what: str, append: Callable[[*Ts], object], *args: *Ts) -> None:
    try:
        append(*args)
    except Exception:
        _log.warning("closing append of %s failed (it may still be logged)", what, exc_info=True)


def write_storable(
    session: Session,
    payload: EventPayload,
    *,
    source_event_seqs: Sequence[int] | None = None,
    surface_op: SurfaceOp | None = None,
) -> SessionEvent:
    """Write one typed event; when it is refused and holds unpaired surrogates, write it
    again with each replaced by U+FFFD (``storable``). Raises what ``Session.write`` raises."""
    try:
        return session.write(payload, source_event_seqs=source_event_seqs, surface_op=surface_op)
    except SessionError:
        clean = storable(payload)
        if clean is payload:
            raise
    return session.write(clean, source_event_seqs=source_event_seqs, surface_op=surface_op)


def _write_noting(
    session: Session,
    payload: EventPayload,
    noted: Callable[[int], object],
    *,
    source_event_seqs: Sequence[int] | None = None,
    surface_op: SurfaceOp | None = None,
) -> None:
    """``write_storable`` the payload, then ``noted(seq)`` whenever the event was logged,
    even when the write raised afterwards (a listener failed). Raises what
    ``write_storable`` raises."""
    size = len(session.events)
    try:
        write_storable(session, payload, source_event_seqs=source_event_seqs, surface_op=surface_op)
    finally:
        if len(session.events) > size:
            noted(size)


def log_call(agent: LoopAgent, state: TurnState, call: ToolCallBlock) -> None:
    """Append the ``tool/call`` of ``call`` and remember its seq. Raises what append raises
    (the seq is remembered whenever the event was logged)."""

    def remember(seq: int) -> None:
        state.call_seqs[call.id] = seq

    payload = ToolCallPayload(
        turn=state.turn, step=state.step, call_id=call.id, name=call.name, arguments=call.arguments
    )
    _write_noting(agent.session, payload, remember)


def log_result(agent: LoopAgent, state: TurnState, call: ToolCallBlock, result: ToolResult) -> None:
    """Append the ``tool/result`` answering ``call`` (surface), citing its ``tool/call``.
    Raises what append raises (the call counts as answered whenever the event was logged)."""
    seq = state.call_seqs.get(call.id)
    payload = ToolResultPayload(
        turn=state.turn,
        step=state.step,
        call_id=call.id,
        content=tuple(result.content),
        is_error=result.is_error,
        error=result_error(result.error),
        meta=result.meta,
    )
    _write_noting(
        agent.session,
        payload,
        lambda _seq: state.answered.add(call.id),
        source_event_seqs=None if seq is None else (seq,),
        surface_op="append",
    )


def skipped_result(*, failed: bool) -> ToolResult:
    """The synthetic result of a call that was cut off or never ran."""
    if failed:
        text = "Error: tool call skipped because the turn failed before it finished."
        code = "TURN_FAILED"
    else:
        text = "Error: tool call cancelled before it finished; it may have run partly."
        code = "ABORTED"
    info = ToolErrorInfo(name="ToolCallSkipped", code=code)
    return ToolResult(content=(TextBlock(text=text),), is_error=True, error=info)


def unlogged_result() -> ToolResult:
    """The synthetic result of a call whose real result the session refused to log."""
    text = "Error: the tool ran, but its result could not be recorded and is lost."
    info = ToolErrorInfo(name="ToolResultUnlogged", code="RESULT_UNLOGGABLE")
    return ToolResult(content=(TextBlock(text=text),), is_error=True, error=info)


def answer_open_calls(agent: LoopAgent, state: TurnState, *, failed: bool) -> None:
    """Give every unanswered call of the current step a result, in call order; a real result
    that cannot be logged is replaced by ``unlogged_result()``."""
    for call in state.calls:
        if call.id in state.answered:
            continue
        if call.id not in state.call_seqs:
            _contained("tool/call", log_call, agent, state, call)
        outcome = state.outcomes.get(call.id)
        attempts: tuple[ToolResult, ...]
        if outcome is None:
            attempts = (skipped_result(failed=failed),)
        else:
            attempts = (outcome.result, unlogged_result())
        for result in attempts:
            if call.id in state.answered:
                break
            _contained("tool/result", log_result, agent, state, call, result)


def log_waiting_context(agent: LoopAgent, state: TurnState) -> None:
    """Log the step's post-execute context, then context injected during the step; both
    after the step's results so calls and results stay adjacent."""
    for content in state.additional_context:
        message = InboxMessage(content=content, source=TOOLS_SOURCE)
        _contained("context/message", log_context, agent, message)
    state.additional_context = []
    waiting, agent.pending_context = agent.pending_context, []
    for message in waiting:
        _contained("context/message", log_context, agent, message)


def close_turn(agent: LoopAgent, state: TurnState, reason: TurnEndReason, *, failed: bool) -> None:
    """Log everything the turn still owes, then ``turn/end{turn, reason}``. Never raises."""
    session = agent.session
    if session.open_turn() != state.turn:
        return
    answer_open_calls(agent, state, failed=failed)
    log_waiting_context(agent, state)
    open_step = session.open_step()
    if open_step is not None:
        turn, step = open_step
        _contained("step/end", session.write, StepEndPayload(turn=turn, step=step))
    _contained("turn/end", session.write, TurnEndPayload(turn=state.turn, reason=reason))
