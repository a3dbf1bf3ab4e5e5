"""The agent/* events: live notifications and the loop's interception seams (agent layer).

Declared here, dispatched by the loop plugin. Payloads carry the live ``Agent``. Turn and step
boundaries are never mirrored here: read them from the session's events.

===============================  ==========  ==============================================
event                            mode        when
===============================  ==========  ==============================================
``agent/created``                emit        registered (before ``agent/session-start``)
``agent/session-start``          emit        once after creation, before the first turn
``agent/queued``                 emit        ``send``/``steer`` put a message in the inbox
``agent/status``                 emit        the status changed
``agent/error``                  emit        a turn failed, or a flush failed
``agent/disposed``               emit        the driver exited; the agent is unregistering
``agent/prompt-submit``          waterfall   per drained message → ``PromptDecision``
``agent/pre-step``               serial      before ``step/start``; return ``None``
``agent/context-overflow``       serial      the provider said the request does not fit;
                                             ``True``: room was made, retry the call once
``agent/request``                waterfall   the ``LlmRequest`` about to go out → request
``agent/step-result``            waterfall   the assembled message, before it is logged
``agent/turn-continuation``      waterfall   after ``step/end`` → ``ContinuationDecision``
===============================  ==========  ==============================================

The emits are dispatched contained (a raising listener is logged, the rest still run).
Waterfall and serial listeners run inside the turn: what they raise fails the turn, and
``Agent.cancel`` interrupts what they await.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from dsh_lsp.kernel import EmitEvent, SerialEvent, WaterfallEvent
from dsh_lsp.llm import ContentBlock, FinishReason, LlmRequest, Message, MessageSource, TokenUsage

from .agent import Agent, AgentStatus
from .decisions import ContinuationDecision, PromptDecision


@dataclass(frozen=True, slots=True, kw_only=True)
class StatusChange:
    """``agent.status`` went from ``previous`` to ``status``."""

    agent: Agent
    status: AgentStatus
    previous: AgentStatus


@dataclass(frozen=True, slots=True, kw_only=True)
class Queued:
    """A message entered the inbox (``steering``: the steering FIFO)."""

    agent: Agent
    content: tuple[ContentBlock, ...]
    source: MessageSource
    steering: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionStart:
    """The agent is ready; ``reason`` says whether its session is new or resumed."""

    agent: Agent
    reason: Literal["startup", "resume"]


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentFailure:
    """Turn ``turn`` failed at ``step`` (0: outside any step, e.g. a flush) with ``error``."""

    agent: Agent
    turn: int
    step: int
    error: Exception


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptSubmit:
    """One drained message about to be logged as the turn's ``user/message``."""

    agent: Agent
    turn: int
    content: tuple[ContentBlock, ...]
    source: MessageSource


@dataclass(frozen=True, slots=True, kw_only=True)
class PreStep:
    """A step is about to start; ``system_prompt`` is the rendered prompt it will send.

    The slot for work that reshapes the surface outside any step (compaction).
    """

    agent: Agent
    turn: int
    step: int
    system_prompt: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextOverflow:
    """The step's model call was refused for exceeding the context window (``error``);
    a listener that makes room (compaction) answers ``True`` and the call is retried once."""

    agent: Agent
    turn: int
    step: int
    error: Exception


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestPayload:
    """The request built from the log; a listener may return a replacement."""

    agent: Agent
    turn: int
    step: int
    request: LlmRequest


@dataclass(frozen=True, slots=True, kw_only=True)
class StepResult:
    """The assembled assistant message of a step, before it is logged and its calls run.

    The message a listener returns is what the log, the history and tool dispatch see.
    """

    agent: Agent
    turn: int
    step: int
    message: Message
    usage: TokenUsage | None
    finish: FinishReason


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnContinuation:
    """The step ended; ``default`` is continue iff it ran tool calls or was steered."""

    agent: Agent
    turn: int
    step: int
    default: ContinuationDecision


AGENT_CREATED: EmitEvent[Agent] = EmitEvent("agent/created")
AGENT_SESSION_START: EmitEvent[SessionStart] = EmitEvent("agent/session-start")
AGENT_QUEUED: EmitEvent[Queued] = EmitEvent("agent/queued")
AGENT_STATUS: EmitEvent[StatusChange] = EmitEvent("agent/status")
AGENT_ERROR: EmitEvent[AgentFailure] = EmitEvent("agent/error")
AGENT_DISPOSED: EmitEvent[Agent] = EmitEvent("agent/disposed")
AGENT_PROMPT_SUBMIT: WaterfallEvent[PromptSubmit, PromptDecision] = WaterfallEvent(
    "agent/prompt-submit"
)
AGENT_PRE_STEP: SerialEvent[PreStep, None] = SerialEvent("agent/pre-step")
AGENT_CONTEXT_OVERFLOW: SerialEvent[ContextOverflow, bool] = SerialEvent("agent/context-overflow")
AGENT_REQUEST: WaterfallEvent[RequestPayload, LlmRequest] = WaterfallEvent("agent/request")
AGENT_STEP_RESULT: WaterfallEvent[StepResult, Message] = WaterfallEvent("agent/step-result")
AGENT_TURN_CONTINUATION: WaterfallEvent[TurnContinuation, ContinuationDecision] = WaterfallEvent(
    "agent/turn-continuation"
)
