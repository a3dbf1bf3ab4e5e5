"""One turn: drain the queued batch, submit prompts, run steps until stop, close (agent_loop).

The turn number is the log's last ``turn/start`` plus one, computed and logged in one
synchronous stretch. Each drained message passes ``agent/prompt-submit``: allowed ones become
``user/message`` (plus optional context), blocked ones ``prompt/blocked``; when every message
is blocked the turn ends ``rejected`` without a step. Steps run until the continuation
decision says stop (steering that is still waiting overrides a stop), the agent is cancelled
or disposed, or ``max_steps`` is reached.

Once the opening events are logged the turn awaits a flush (``flush``), so a session exists
on disk from its first user message; text that cannot be stored as it is (an unpaired
surrogate in an attachment or plugin content) is stored with U+FFFD in its place.

The turn is the containment boundary: any exception inside it is recorded once as
``error{step, message, code}`` and announced on ``agent/error``; the turn still closes
(``closing``) and is flushed, and the driver goes on. Reasons, strongest first: disposed,
aborted, error, max-tokens (any step ran out of output budget), max-steps, completed; a
turn whose prompts were all blocked ends rejected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, assert_never

import anyio

from dsh_lsp.agent import (
    AGENT_PROMPT_SUBMIT,
    AGENT_TURN_CONTINUATION,
    ContinuationDecision,
    InboxMessage,
    PromptAllow,
    PromptBlock,
    PromptDecision,
    PromptSubmit,
    TurnContinuation,
    TurnContinue,
    TurnStop,
    error_code,
)
from dsh_lsp.llm import PluginSource
from dsh_lsp.session import (
    MessageTrigger,
    PromptBlockedPayload,
    TurnEndReason,
    TurnStartPayload,
    UserMessagePayload,
    end_reason,
)

from .closing import close_turn, write_storable
from .flush import flush_session, make_durable
from .injection import log_context
from .step import check_cancel, run_step
from .turn_state import TurnInterrupted, TurnState

if TYPE_CHECKING:
    from .loop_agent import LoopAgent

CONTINUATION_SOURCE = PluginSource(plugin="agent/turn-continuation")
"""The default source of a continuation reason queued as steering."""
PROMPT_SOURCE = PluginSource(plugin="agent/prompt-submit")
"""The source of the additional context a prompt-submit decision brings."""


def _root(error: Exception) -> Exception:
    """The single exception inside (nested) one-member exception groups, else ``error``."""
    while isinstance(error, ExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


async def run_turn(agent: LoopAgent) -> None:
    """Run one turn over everything queued. Never raises but cancellation of the driver
    (the turn is closed and flushed first, shielded)."""
    batch = agent.inbox.drain_queued()
    if not batch:
        return
    session = agent.session
    state = TurnState(turn=session.last_turn() + 1)
    scope = anyio.CancelScope()
    tool_cancel = anyio.Event()
    reason: TurnEndReason | None = None
    failed = False
    agent.enter_turn(scope, tool_cancel)
    try:
        with scope:
            try:
                trigger = MessageTrigger(source=batch[0].source)
                session.write(TurnStartPayload(turn=state.turn, trigger=trigger))
                reason = await _turn_body(agent, state, batch, tool_cancel)
            except TurnInterrupted:
                pass
            except Exception as exc:
                if not agent.cancel_requested:
                    error = _root(exc)
                    failed = True
                    reason = end_reason(
                        "error",
                        step=state.step,
                        message=str(error) or type(error).__name__,
                        code=error_code(error),
                    )
                    agent.report_error(state.turn, state.step, error)
    finally:
        agent.leave_turn()
        if agent.disposing:
            reason = end_reason("disposed")
        elif reason is None or (agent.cancel_requested and not failed):
            reason = end_reason("aborted", reason=agent.cancel_reason)
        with anyio.CancelScope(shield=True):
            close_turn(agent, state, reason, failed=failed)
            await flush_session(agent, state.turn)


async def _submit(
    agent: LoopAgent, state: TurnState, batch: tuple[InboxMessage, ...]
) -> str | None:
    """Pass each message through ``agent/prompt-submit``; returns the last block reason when
    every message was blocked, else None."""
    session = agent.session
    accepted = 0
    blocked: str | None = None
    for message in batch:

        async def allow() -> PromptDecision:
            return PromptAllow()

        payload = PromptSubmit(
            agent=agent, turn=state.turn, content=message.content, source=message.source
        )
        decision = await agent.services.ctx.waterfall(AGENT_PROMPT_SUBMIT, payload, allow)
        match decision:
            case PromptAllow(content=content, additional_context=context):
                accepted += 1
                text = message.content if content is None else content
                write_storable(
                    session,
                    UserMessagePayload(content=tuple(text), source=message.source),
                    surface_op="append",
                )
                if context:
                    log_context(agent, InboxMessage(content=context, source=PROMPT_SOURCE))
            case PromptBlock(reason=why):
                blocked = why
                session.write(
                    PromptBlockedPayload(
                        content=tuple(message.content), source=message.source, reason=why
                    )
                )
            case _:
                assert_never(decision)
    return None if accepted else blocked or "blocked"


async def _turn_body(
    agent: LoopAgent, state: TurnState, batch: tuple[InboxMessage, ...], cancel: anyio.Event
) -> TurnEndReason:
    rejected = await _submit(agent, state, batch)
    if rejected is not None:
        return end_reason("rejected", reason=rejected)
    await make_durable(agent)  # the opening events (and a new session's header) are stored
    ctx = agent.services.ctx
    while True:
        check_cancel(agent)
        proceed = await run_step(agent, state, cancel)
        default: ContinuationDecision = TurnContinue() if proceed else TurnStop()

        async def as_default(default: ContinuationDecision = default) -> ContinuationDecision:
            return default

        payload = TurnContinuation(agent=agent, turn=state.turn, step=state.step, default=default)
        decision = await ctx.waterfall(AGENT_TURN_CONTINUATION, payload, as_default)
        check_cancel(agent)
        match decision:
            case TurnContinue(reason=why, source=source):
                if state.step >= agent.options.max_steps:
                    return _stopped(state, "max-steps")
                if why:
                    agent.inbox.steer(
                        InboxMessage(content=why, source=source or CONTINUATION_SOURCE)
                    )
            case TurnStop():
                if not agent.inbox.has_steering:
                    return _stopped(state, "completed")
                if state.step >= agent.options.max_steps:
                    return _stopped(state, "max-steps")
            case _:
                assert_never(decision)


def _stopped(state: TurnState, kind: Literal["completed", "max-steps"]) -> TurnEndReason:
    """The reason of a turn that stopped on its own: max-tokens wins if any step hit it."""
    return end_reason("max-tokens" if state.max_tokens else kind)
