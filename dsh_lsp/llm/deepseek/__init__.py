"""The DeepSeek adapter, which serves any OpenAI-compatible chat-completions endpoint.

Pure parts (``serialize``, ``translate``, ``http_errors``, ``wire``) are separate from the
httpx shell (``adapter``, with ``drain`` for keep-alive) and the kernel plugin (``plugin``).
"""

from __future__ import annotations

from .adapter import USER_AGENT as USER_AGENT
from .adapter import DeepSeekAdapter as DeepSeekAdapter
from .config import BASE_URL_ENV as BASE_URL_ENV
from .config import DEFAULT_BASE_URL as DEFAULT_BASE_URL
from .config import DEFAULT_MODELS as DEFAULT_MODELS
from .config import DeepSeekConfig as DeepSeekConfig
from .drain import DrainBudget as DrainBudget
from .drain import drain_body as drain_body
from .http_errors import error_from_response as error_from_response
from .plugin import DeepSeekPlugin as DeepSeekPlugin
from .serialize import NO_OUTPUT as NO_OUTPUT
from .serialize import ReasoningEffort as ReasoningEffort
from .serialize import Thinking as Thinking
from .serialize import serialize_request as serialize_request
from .serialize import wire_messages as wire_messages
from .translate import StreamTranslator as StreamTranslator
from .translate import finish_from_wire as finish_from_wire
from .translate import usage_from_wire as usage_from_wire
from .wire import ChatChunk as ChatChunk
from .wire import parse_chat_chunk as parse_chat_chunk

__all__ = (
    "BASE_URL_ENV",
    "DEFAULT_BASE_URL",
    "DEFAULT_MODELS",
    "NO_OUTPUT",
    "USER_AGENT",
    "ChatChunk",
    "DeepSeekAdapter",
    "DeepSeekConfig",
    "DeepSeekPlugin",
    "DrainBudget",
    "ReasoningEffort",
    "StreamTranslator",
    "Thinking",
    "drain_body",
    "error_from_response",
    "finish_from_wire",
    "parse_chat_chunk",
    "serialize_request",
    "usage_from_wire",
    "wire_messages",
)
