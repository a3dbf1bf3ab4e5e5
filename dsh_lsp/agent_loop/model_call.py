"""One model call: request, stream into the log, step-result, assistant message (agent_loop).

The request's history is ``session.derive_messages()`` at that moment, so everything the model
sees is rebuilt from the log. ``agent/request`` may replace the request. Every streamed chunk
is logged as ``assistant/chunk`` before it is folded by the ``BlockAssembler``; a chunk whose
text cannot be stored (an unpaired surrogate) is logged and folded with U+FFFD in its place,
so the message and the tool arguments built from it are storable too. A stream that
raises or finishes with ``error``/``aborted`` fails the step. A ``max-tokens`` finish drops the
tool calls (their arguments may be cut off) and marks the turn. ``agent/step-result`` runs
before ``assistant/message`` is logged, so the log, the history and tool dispatch all see the
message it returns; the message is logged unless it has neither content nor usage (a
reasoning-only answer is content, and is logged).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, assert_never

import anyio

from dsh_lsp.agent import (
    AGENT_REQUEST,
    AGENT_STEP_RESULT,
    AgentCode,
    AgentError,
    RequestPayload,
    StepResult,
)
from dsh_lsp.llm import (
    BlockAssembler,
    ExtensionFinish,
    FinishAborted,
    FinishError,
    FinishMaxTokens,
    FinishStop,
    FinishToolCalls,
    LlmRequest,
    Message,
    ToolCallBlock,
)
from dsh_lsp.session import AssistantChunkPayload, AssistantMessagePayload, SessionError, storable
from dsh_lsp.tools import PromptAssembly

from .turn_state import TurnInterrupted, TurnState

if TYPE_CHECKING:
    from .loop_agent import LoopAgent


def build_request(agent: LoopAgent, assembly: PromptAssembly, system: str) -> LlmRequest:
    """The step's request before ``agent/request``: history derived from the log now."""
    options = agent.options
    session = agent.session
    return LlmRequest(
        model=options.model,
        messages=session.derive_messages(),
        system=system or None,
        tools=assembly.tools,
        temperature=options.temperature,
        max_tokens=options.max_tokens,
        stop=options.stop,
        session_id=session.id,
    )


async def call_model(
    agent: LoopAgent, state: TurnState, assembly: PromptAssembly, system: str
) -> tuple[ToolCallBlock, ...]:
    """Run the step's model call and log its message; returns the tool calls to dispatch.

    Raises AgentError (``NO_MODEL``, ``MODEL_FAILED``, ``ABORTED``), LlmError from the stream,
    TurnInterrupted when the agent is cancelled mid-stream, and what listeners raise.
    """
    ctx = agent.services.ctx
    session = agent.session
    request = build_request(agent, assembly, system)

    async def unchanged() -> LlmRequest:
        return request

    payload = RequestPayload(agent=agent, turn=state.turn, step=state.step, request=request)
    request = await ctx.waterfall(AGENT_REQUEST, payload, unchanged)
    if not request.model:
        raise AgentError("the model request names no model", code=AgentCode.NO_MODEL)
    assembler = BlockAssembler()
    seqs: list[int] = []
    chunks = agent.services.llm.stream(request)
    try:
        async for chunk in chunks:
            if agent.cancel_requested:
                raise TurnInterrupted
            seqs.append(len(session.events))
            try:
                session.write(AssistantChunkPayload(turn=state.turn, step=state.step, chunk=chunk))
            except SessionError:
                clean = storable(chunk)
                if clean is chunk:
                    raise
                chunk = clean
                session.write(AssistantChunkPayload(turn=state.turn, step=state.step, chunk=chunk))
            assembler.feed(chunk)
    finally:
        if isinstance(chunks, AsyncGenerator):
            with anyio.CancelScope(shield=True):  # close the connection even when cancelled
                await chunks.aclose()
    assembled = assembler.result()
    content = assembled.message.content
    finish = assembled.finish
    match finish:
        case FinishError(message=text, code=code):
            raise AgentError(f"the model failed: {text}", code=code or AgentCode.MODEL_FAILED)
        case FinishAborted():
            if agent.cancel_requested:
                raise TurnInterrupted
            raise AgentError("the model call ended aborted", code=AgentCode.ABORTED)
        case FinishMaxTokens():
            state.max_tokens = True
            content = tuple(block for block in content if not isinstance(block, ToolCallBlock))
        case FinishStop() | FinishToolCalls():
            pass
        case ExtensionFinish():
            pass  # default for plugin finish reasons: the step ends as on ``stop``
        case _:
            assert_never(finish)
    message = Message(role="assistant", content=content)

    async def as_assembled() -> Message:
        return message

    result = StepResult(
        agent=agent,
        turn=state.turn,
        step=state.step,
        message=message,
        usage=assembled.usage,
        finish=finish,
    )
    message = storable(await ctx.waterfall(AGENT_STEP_RESULT, result, as_assembled))
    calls: tuple[ToolCallBlock, ...] = ()
    if not isinstance(finish, FinishMaxTokens):
        calls = tuple(block for block in message.content if isinstance(block, ToolCallBlock))
    if not message.content and assembled.usage is None:
        return ()
    size = len(session.events)
    try:
        session.write(
            AssistantMessagePayload(
                turn=state.turn, step=state.step, content=message.content, usage=assembled.usage
            ),
            source_event_seqs=tuple(seqs) or None,
            surface_op="append",
        )
    finally:
        if len(session.events) > size:
            state.calls = calls
    return calls
