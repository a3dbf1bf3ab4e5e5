"""Agent vocabulary: the agent handle, registry, inbox, decisions and agent/* events (agent).

Everything a UI or plugin needs to drive agents without knowing the loop: ``Agent`` (the
protocol the loop implements), ``AgentRegistry`` under ``AGENTS`` (create, resume, get; the
loop fills its factory slot), ``AgentHandle`` (memoized dispose), the ``Inbox``, the
``PromptDecision``/``ContinuationDecision`` values, the ``agent/*`` events and their payloads,
and the invariants plugin that checks logs and status transitions at runtime.
"""

from __future__ import annotations

from .agent import Agent as Agent
from .agent import AgentStatus as AgentStatus
from .decisions import ContinuationDecision as ContinuationDecision
from .decisions import PromptAllow as PromptAllow
from .decisions import PromptBlock as PromptBlock
from .decisions import PromptDecision as PromptDecision
from .decisions import TurnContinue as TurnContinue
from .decisions import TurnStop as TurnStop
from .errors import AgentCode as AgentCode
from .errors import AgentError as AgentError
from .errors import error_code as error_code
from .events import AGENT_CONTEXT_OVERFLOW as AGENT_CONTEXT_OVERFLOW
from .events import AGENT_CREATED as AGENT_CREATED
from .events import AGENT_DISPOSED as AGENT_DISPOSED
from .events import AGENT_ERROR as AGENT_ERROR
from .events import AGENT_PRE_STEP as AGENT_PRE_STEP
from .events import AGENT_PROMPT_SUBMIT as AGENT_PROMPT_SUBMIT
from .events import AGENT_QUEUED as AGENT_QUEUED
from .events import AGENT_REQUEST as AGENT_REQUEST
from .events import AGENT_SESSION_START as AGENT_SESSION_START
from .events import AGENT_STATUS as AGENT_STATUS
from .events import AGENT_STEP_RESULT as AGENT_STEP_RESULT
from .events import AGENT_TURN_CONTINUATION as AGENT_TURN_CONTINUATION
from .events import AgentFailure as AgentFailure
from .events import ContextOverflow as ContextOverflow
from .events import PreStep as PreStep
from .events import PromptSubmit as PromptSubmit
from .events import Queued as Queued
from .events import RequestPayload as RequestPayload
from .events import SessionStart as SessionStart
from .events import StatusChange as StatusChange
from .events import StepResult as StepResult
from .events import TurnContinuation as TurnContinuation
from .handle import AgentHandle as AgentHandle
from .ids import AgentId as AgentId
from .inbox import Inbox as Inbox
from .inbox import InboxMessage as InboxMessage
from .inbox import PromptContent as PromptContent
from .inbox import as_blocks as as_blocks
from .invariants import INVARIANTS as INVARIANTS
from .invariants import InvariantChecker as InvariantChecker
from .invariants import InvariantsConfig as InvariantsConfig
from .invariants import InvariantsPlugin as InvariantsPlugin
from .invariants import InvariantViolation as InvariantViolation
from .log_rules import LogRules as LogRules
from .options import DEFAULT_MAX_STEPS as DEFAULT_MAX_STEPS
from .options import AgentOptions as AgentOptions
from .registry import AGENTS as AGENTS
from .registry import AgentFactory as AgentFactory
from .registry import AgentRegistry as AgentRegistry
from .registry import AgentSpec as AgentSpec
from .registry import AgentsPlugin as AgentsPlugin
from .registry import ResumeSpec as ResumeSpec

__all__ = (
    "AGENTS",
    "AGENT_CONTEXT_OVERFLOW",
    "AGENT_CREATED",
    "AGENT_DISPOSED",
    "AGENT_ERROR",
    "AGENT_PRE_STEP",
    "AGENT_PROMPT_SUBMIT",
    "AGENT_QUEUED",
    "AGENT_REQUEST",
    "AGENT_SESSION_START",
    "AGENT_STATUS",
    "AGENT_STEP_RESULT",
    "AGENT_TURN_CONTINUATION",
    "DEFAULT_MAX_STEPS",
    "INVARIANTS",
    "Agent",
    "AgentCode",
    "AgentError",
    "AgentFactory",
    "AgentFailure",
    "AgentHandle",
    "AgentId",
    "AgentOptions",
    "AgentRegistry",
    "AgentSpec",
    "AgentStatus",
    "AgentsPlugin",
    "ContextOverflow",
    "ContinuationDecision",
    "Inbox",
    "InboxMessage",
    "InvariantChecker",
    "InvariantViolation",
    "InvariantsConfig",
    "InvariantsPlugin",
    "LogRules",
    "PreStep",
    "PromptAllow",
    "PromptBlock",
    "PromptContent",
    "PromptDecision",
    "PromptSubmit",
    "Queued",
    "RequestPayload",
    "ResumeSpec",
    "SessionStart",
    "StatusChange",
    "StepResult",
    "TurnContinuation",
    "TurnContinue",
    "TurnStop",
    "as_blocks",
    "error_code",
)
