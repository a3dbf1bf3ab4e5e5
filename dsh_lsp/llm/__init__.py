"""Model layer: the provider-neutral content-block vocabulary, chunk stream and adapters.

Values are frozen dataclasses; pydantic appears only at the wire (``deepseek``). The pieces:
blocks and messages (``blocks``, ``message``), the chunk protocol (``chunks``) and its one
fold (``assembler``), JSON records for persistence (``codec``, ``chunk_codec``) and the typed
field readers every record decoder uses (``json_fields``), the open-vocabulary registry
(``vocabulary``) that blocks, finish reasons and message sources share, ``LlmError`` codes,
the pure SSE decoder and retry policy, the adapter seam and ``LlmService``.
"""

from __future__ import annotations

from .adapter import LlmAdapter as LlmAdapter
from .assembler import AssembledResponse as AssembledResponse
from .assembler import BlockAssembler as BlockAssembler
from .assembler import assemble as assemble
from .block_registry import BLOCK_KINDS as BLOCK_KINDS
from .block_registry import block_type as block_type
from .block_registry import register_block_type as register_block_type
from .blocks import CORE_BLOCK_KINDS as CORE_BLOCK_KINDS
from .blocks import ContentBlock as ContentBlock
from .blocks import ExtensionBlock as ExtensionBlock
from .blocks import OpaqueBlock as OpaqueBlock
from .blocks import ReasoningBlock as ReasoningBlock
from .blocks import TextBlock as TextBlock
from .blocks import ToolCallBlock as ToolCallBlock
from .blocks import ToolResultBlock as ToolResultBlock
from .chunk_codec import chunk_from_json as chunk_from_json
from .chunk_codec import chunk_to_json as chunk_to_json
from .chunk_codec import finish_from_json as finish_from_json
from .chunk_codec import finish_to_json as finish_to_json
from .chunk_codec import usage_from_json as usage_from_json
from .chunk_codec import usage_to_json as usage_to_json
from .chunks import BlockEnd as BlockEnd
from .chunks import BlockStart as BlockStart
from .chunks import FinishChunk as FinishChunk
from .chunks import ReasoningDelta as ReasoningDelta
from .chunks import StreamChunk as StreamChunk
from .chunks import TextDelta as TextDelta
from .chunks import ToolCallDelta as ToolCallDelta
from .chunks import UsageChunk as UsageChunk
from .codec import block_from_json as block_from_json
from .codec import block_to_json as block_to_json
from .codec import message_from_json as message_from_json
from .codec import message_to_json as message_to_json
from .codec import source_from_json as source_from_json
from .codec import source_to_json as source_to_json
from .errors import LlmCode as LlmCode
from .errors import LlmError as LlmError
from .finish import FINISH_REASONS as FINISH_REASONS
from .finish import ExtensionFinish as ExtensionFinish
from .finish import FinishAborted as FinishAborted
from .finish import FinishError as FinishError
from .finish import FinishMaxTokens as FinishMaxTokens
from .finish import FinishReason as FinishReason
from .finish import FinishStop as FinishStop
from .finish import FinishToolCalls as FinishToolCalls
from .finish import OpaqueFinish as OpaqueFinish
from .ids import CallId as CallId
from .ids import SessionId as SessionId
from .json_fields import as_object as as_object
from .json_fields import malformed as malformed
from .json_fields import read_bool as read_bool
from .json_fields import read_int as read_int
from .json_fields import read_list as read_list
from .json_fields import read_opt_int as read_opt_int
from .json_fields import read_opt_str as read_opt_str
from .json_fields import read_str as read_str
from .json_value import JsonObject as JsonObject
from .json_value import JsonValue as JsonValue
from .json_value import dumps_compact as dumps_compact
from .json_value import loads_strict as loads_strict
from .json_value import storable_text as storable_text
from .merge import merge_deltas as merge_deltas
from .message import MESSAGE_SOURCES as MESSAGE_SOURCES
from .message import ExtensionSource as ExtensionSource
from .message import Message as Message
from .message import MessageSource as MessageSource
from .message import OpaqueSource as OpaqueSource
from .message import PluginSource as PluginSource
from .message import Role as Role
from .message import UserSource as UserSource
from .request import LlmRequest as LlmRequest
from .request import ToolSchema as ToolSchema
from .retry import LLM_RETRY as LLM_RETRY
from .retry import RETRYABLE_CODES as RETRYABLE_CODES
from .retry import LlmRetry as LlmRetry
from .retry import RetryPolicy as RetryPolicy
from .retry import parse_retry_after as parse_retry_after
from .service import LLM as LLM
from .service import LLM_STREAM as LLM_STREAM
from .service import LlmPlugin as LlmPlugin
from .service import LlmService as LlmService
from .sse import SseDecoder as SseDecoder
from .usage import TokenUsage as TokenUsage
from .vocabulary import Extension as Extension
from .vocabulary import Opaque as Opaque
from .vocabulary import Vocabulary as Vocabulary

__all__ = (
    "BLOCK_KINDS",
    "CORE_BLOCK_KINDS",
    "FINISH_REASONS",
    "LLM",
    "LLM_RETRY",
    "LLM_STREAM",
    "MESSAGE_SOURCES",
    "RETRYABLE_CODES",
    "AssembledResponse",
    "BlockAssembler",
    "BlockEnd",
    "BlockStart",
    "CallId",
    "ContentBlock",
    "Extension",
    "ExtensionBlock",
    "ExtensionFinish",
    "ExtensionSource",
    "FinishAborted",
    "FinishChunk",
    "FinishError",
    "FinishMaxTokens",
    "FinishReason",
    "FinishStop",
    "FinishToolCalls",
    "JsonObject",
    "JsonValue",
    "LlmAdapter",
    "LlmCode",
    "LlmError",
    "LlmPlugin",
    "LlmRequest",
    "LlmRetry",
    "LlmService",
    "Message",
    "MessageSource",
    "Opaque",
    "OpaqueBlock",
    "OpaqueFinish",
    "OpaqueSource",
    "PluginSource",
    "ReasoningBlock",
    "ReasoningDelta",
    "RetryPolicy",
    "Role",
    "SessionId",
    "SseDecoder",
    "StreamChunk",
    "TextBlock",
    "TextDelta",
    "TokenUsage",
    "ToolCallBlock",
    "ToolCallDelta",
    "ToolResultBlock",
    "ToolSchema",
    "UsageChunk",
    "UserSource",
    "Vocabulary",
    "as_object",
    "assemble",
    "block_from_json",
    "block_to_json",
    "block_type",
    "chunk_from_json",
    "chunk_to_json",
    "dumps_compact",
    "finish_from_json",
    "finish_to_json",
    "loads_strict",
    "malformed",
    "merge_deltas",
    "message_from_json",
    "message_to_json",
    "parse_retry_after",
    "read_bool",
    "read_int",
    "read_list",
    "read_opt_int",
    "read_opt_str",
    "read_str",
    "register_block_type",
    "source_from_json",
    "source_to_json",
    "storable_text",
    "usage_from_json",
    "usage_to_json",
)
