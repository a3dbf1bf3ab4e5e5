"""Session log: append-only events, the derived surface and persistence backends.

A ``Session`` is one agent's append-only log of ``SessionEvent``s; turn numbers, open
turn/step, unanswered tool calls and the model history (``derive_messages``) are derived from
it. ``SessionStore`` (service ``SESSIONS``, plugin ``SessionPlugin``) creates, forks and
resumes sessions and announces ``SESSION_CREATED`` / ``SESSION_EVENT``; ``SESSION_FLUSH`` is
the durability checkpoint. Persistence is a seam (``SESSION_PERSISTENCE``) with JSONL and
SQLite backends and a write-behind ``PersistenceCoordinatorPlugin``; loading repairs crashes.
Each event's data is typed (``payloads``: one frozen payload class per core type, decoded once
as the log admits an event); the turn trigger and turn-end reason (``turn_kinds``) and the
payloads themselves are open vocabularies that plugins extend.
"""

from __future__ import annotations

from .clock import Clock as Clock
from .clock import wall_clock_ms as wall_clock_ms
from .coordinator import PERSISTENCE_COORDINATOR as PERSISTENCE_COORDINATOR
from .coordinator import PersistenceCoordinator as PersistenceCoordinator
from .coordinator import PersistenceCoordinatorPlugin as PersistenceCoordinatorPlugin
from .errors import SessionError as SessionError
from .event import SessionEvent as SessionEvent
from .event import SurfaceOp as SurfaceOp
from .event import SurfaceReplace as SurfaceReplace
from .event import encode_event as encode_event
from .event import event_from_json as event_from_json
from .event import event_to_json as event_to_json
from .events import ASSISTANT_CHUNK as ASSISTANT_CHUNK
from .events import ASSISTANT_MESSAGE as ASSISTANT_MESSAGE
from .events import CONTEXT_MESSAGE as CONTEXT_MESSAGE
from .events import CORE_EVENT_TYPES as CORE_EVENT_TYPES
from .events import INTERRUPTED_RESULT_TEXT as INTERRUPTED_RESULT_TEXT
from .events import PROMPT_BLOCKED as PROMPT_BLOCKED
from .events import STEERING_MESSAGE as STEERING_MESSAGE
from .events import STEP_END as STEP_END
from .events import STEP_START as STEP_START
from .events import SURFACE_EVENT_TYPES as SURFACE_EVENT_TYPES
from .events import TOOL_CALL as TOOL_CALL
from .events import TOOL_RESULT as TOOL_RESULT
from .events import TURN_END as TURN_END
from .events import TURN_START as TURN_START
from .events import USER_MESSAGE as USER_MESSAGE
from .events import ErrorInfo as ErrorInfo
from .header import SessionHeader as SessionHeader
from .header import header_from_json as header_from_json
from .header import header_to_json as header_to_json
from .json_check import NotJsonError as NotJsonError
from .json_check import clone_json as clone_json
from .json_check import is_lossless_json as is_lossless_json
from .json_check import storable as storable
from .jsonl import JsonlPersistence as JsonlPersistence
from .jsonl import JsonlPersistenceConfig as JsonlPersistenceConfig
from .jsonl import JsonlPersistencePlugin as JsonlPersistencePlugin
from .kernel_events import SESSION_CREATED as SESSION_CREATED
from .kernel_events import SESSION_EVENT as SESSION_EVENT
from .kernel_events import SESSION_FLUSH as SESSION_FLUSH
from .kernel_events import SESSION_FLUSH_SOON as SESSION_FLUSH_SOON
from .kernel_events import SESSION_STORED as SESSION_STORED
from .kernel_events import SessionEventNotice as SessionEventNotice
from .kernel_events import SessionStored as SessionStored
from .payloads import EVENT_PAYLOADS as EVENT_PAYLOADS
from .payloads import AssistantChunkPayload as AssistantChunkPayload
from .payloads import AssistantMessagePayload as AssistantMessagePayload
from .payloads import ContextMessagePayload as ContextMessagePayload
from .payloads import EventPayload as EventPayload
from .payloads import ExtensionPayload as ExtensionPayload
from .payloads import PromptBlockedPayload as PromptBlockedPayload
from .payloads import RawPayload as RawPayload
from .payloads import ResultError as ResultError
from .payloads import SteeringMessagePayload as SteeringMessagePayload
from .payloads import StepEndPayload as StepEndPayload
from .payloads import StepStartPayload as StepStartPayload
from .payloads import ToolCallPayload as ToolCallPayload
from .payloads import ToolResultPayload as ToolResultPayload
from .payloads import TurnEndPayload as TurnEndPayload
from .payloads import TurnStartPayload as TurnStartPayload
from .payloads import UserMessagePayload as UserMessagePayload
from .payloads import assistant_chunk_data as assistant_chunk_data
from .payloads import assistant_message_data as assistant_message_data
from .payloads import context_message_data as context_message_data
from .payloads import decode_payload as decode_payload
from .payloads import injection_trigger as injection_trigger
from .payloads import message_trigger as message_trigger
from .payloads import prompt_blocked_data as prompt_blocked_data
from .payloads import result_error as result_error
from .payloads import steering_message_data as steering_message_data
from .payloads import step_end_data as step_end_data
from .payloads import step_start_data as step_start_data
from .payloads import tool_call_data as tool_call_data
from .payloads import tool_result_data as tool_result_data
from .payloads import turn_end_data as turn_end_data
from .payloads import turn_start_data as turn_start_data
from .payloads import user_message_data as user_message_data
from .persistence import SESSION_PERSISTENCE as SESSION_PERSISTENCE
from .persistence import LoadedSession as LoadedSession
from .persistence import SessionPersistence as SessionPersistence
from .persistence import StoredSession as StoredSession
from .plugin import SessionPlugin as SessionPlugin
from .session import AppendListener as AppendListener
from .session import EventLog as EventLog
from .session import Session as Session
from .sqlite import SqlitePersistence as SqlitePersistence
from .sqlite import SqlitePersistenceConfig as SqlitePersistenceConfig
from .sqlite import SqlitePersistencePlugin as SqlitePersistencePlugin
from .state_dir import default_sessions_dir as default_sessions_dir
from .state_dir import default_sqlite_path as default_sqlite_path
from .state_dir import default_state_dir as default_state_dir
from .store import SESSIONS as SESSIONS
from .store import SessionStore as SessionStore
from .store import new_session_id as new_session_id
from .turn_kinds import TURN_END_REASONS as TURN_END_REASONS
from .turn_kinds import TURN_TRIGGERS as TURN_TRIGGERS
from .turn_kinds import ExtensionTrigger as ExtensionTrigger
from .turn_kinds import ExtensionTurnEnd as ExtensionTurnEnd
from .turn_kinds import InjectionTrigger as InjectionTrigger
from .turn_kinds import MessageTrigger as MessageTrigger
from .turn_kinds import OpaqueTrigger as OpaqueTrigger
from .turn_kinds import OpaqueTurnEnd as OpaqueTurnEnd
from .turn_kinds import TurnAborted as TurnAborted
from .turn_kinds import TurnCompleted as TurnCompleted
from .turn_kinds import TurnDisposed as TurnDisposed
from .turn_kinds import TurnEndKind as TurnEndKind
from .turn_kinds import TurnEndReason as TurnEndReason
from .turn_kinds import TurnFailed as TurnFailed
from .turn_kinds import TurnInterrupted as TurnInterrupted
from .turn_kinds import TurnMaxSteps as TurnMaxSteps
from .turn_kinds import TurnMaxTokens as TurnMaxTokens
from .turn_kinds import TurnRejected as TurnRejected
from .turn_kinds import TurnTrigger as TurnTrigger
from .turn_kinds import end_reason as end_reason
from .turn_kinds import end_reason_from_json as end_reason_from_json
from .turn_kinds import end_reason_to_json as end_reason_to_json
from .turn_kinds import trigger_from_json as trigger_from_json
from .turn_kinds import trigger_to_json as trigger_to_json
from .turns import completed_prefix as completed_prefix

__all__ = (
    "ASSISTANT_CHUNK",
    "ASSISTANT_MESSAGE",
    "CONTEXT_MESSAGE",
    "CORE_EVENT_TYPES",
    "EVENT_PAYLOADS",
    "INTERRUPTED_RESULT_TEXT",
    "PERSISTENCE_COORDINATOR",
    "PROMPT_BLOCKED",
    "SESSIONS",
    "SESSION_CREATED",
    "SESSION_EVENT",
    "SESSION_FLUSH",
    "SESSION_FLUSH_SOON",
    "SESSION_PERSISTENCE",
    "SESSION_STORED",
    "STEERING_MESSAGE",
    "STEP_END",
    "STEP_START",
    "SURFACE_EVENT_TYPES",
    "TOOL_CALL",
    "TOOL_RESULT",
    "TURN_END",
    "TURN_END_REASONS",
    "TURN_START",
    "TURN_TRIGGERS",
    "USER_MESSAGE",
    "AppendListener",
    "AssistantChunkPayload",
    "AssistantMessagePayload",
    "Clock",
    "ContextMessagePayload",
    "ErrorInfo",
    "EventLog",
    "EventPayload",
    "ExtensionPayload",
    "ExtensionTrigger",
    "ExtensionTurnEnd",
    "InjectionTrigger",
    "JsonlPersistence",
    "JsonlPersistenceConfig",
    "JsonlPersistencePlugin",
    "LoadedSession",
    "MessageTrigger",
    "NotJsonError",
    "OpaqueTrigger",
    "OpaqueTurnEnd",
    "PersistenceCoordinator",
    "PersistenceCoordinatorPlugin",
    "PromptBlockedPayload",
    "RawPayload",
    "ResultError",
    "Session",
    "SessionError",
    "SessionEvent",
    "SessionEventNotice",
    "SessionHeader",
    "SessionPersistence",
    "SessionPlugin",
    "SessionStore",
    "SessionStored",
    "SqlitePersistence",
    "SqlitePersistenceConfig",
    "SqlitePersistencePlugin",
    "SteeringMessagePayload",
    "StepEndPayload",
    "StepStartPayload",
    "StoredSession",
    "SurfaceOp",
    "SurfaceReplace",
    "ToolCallPayload",
    "ToolResultPayload",
    "TurnAborted",
    "TurnCompleted",
    "TurnDisposed",
    "TurnEndKind",
    "TurnEndPayload",
    "TurnEndReason",
    "TurnFailed",
    "TurnInterrupted",
    "TurnMaxSteps",
    "TurnMaxTokens",
    "TurnRejected",
    "TurnStartPayload",
    "TurnTrigger",
    "UserMessagePayload",
    "assistant_chunk_data",
    "assistant_message_data",
    "clone_json",
    "completed_prefix",
    "context_message_data",
    "decode_payload",
    "default_sessions_dir",
    "default_sqlite_path",
    "default_state_dir",
    "encode_event",
    "end_reason",
    "end_reason_from_json",
    "end_reason_to_json",
    "event_from_json",
    "event_to_json",
    "header_from_json",
    "header_to_json",
    "injection_trigger",
    "is_lossless_json",
    "message_trigger",
    "new_session_id",
    "prompt_blocked_data",
    "result_error",
    "steering_message_data",
    "step_end_data",
    "step_start_data",
    "storable",
    "tool_call_data",
    "tool_result_data",
    "trigger_from_json",
    "trigger_to_json",
    "turn_end_data",
    "turn_start_data",
    "user_message_data",
    "wall_clock_ms",
)
