"""The DeepSeek adapter, which serves any OpenAI-compatible chat-completions endpoint.

Pure parts (``serialize``, ``translate``, ``http_errors``, ``wire``) are separate from the
httpx shell (``adapter``, with ``drain`` for keep-alive) and the kernel plugin (``plugin``).
The httpx-backed names load lazily on first use (PEP 562), so code that only needs the
vocabulary (``DEFAULT_MODELS``, ``Thinking``; the language server's settings validation before
``initialize`` is answered) does not pay for importing httpx.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

from .config import BASE_URL_ENV as BASE_URL_ENV
from .config import DEFAULT_BASE_URL as DEFAULT_BASE_URL
from .config import DEFAULT_MODELS as DEFAULT_MODELS
from .config import DeepSeekConfig as DeepSeekConfig
from .config import ModelTimeouts as ModelTimeouts
from .endpoint import ReasoningField as ReasoningField
from .endpoint import display_url as display_url
from .endpoint import key_required as key_required
from .endpoint import normalize_base_url as normalize_base_url
from .http_errors import error_from_payload as error_from_payload
from .http_errors import error_from_response as error_from_response
from .serialize import NO_OUTPUT as NO_OUTPUT
from .serialize import ReasoningEffort as ReasoningEffort
from .serialize import RequestEncoder as RequestEncoder
from .serialize import Thinking as Thinking
from .serialize import WireRules as WireRules
from .serialize import serialize_request as serialize_request
from .serialize import wire_messages as wire_messages
from .serialize import wire_rules as wire_rules
from .translate import StreamTranslator as StreamTranslator
from .translate import ThinkSplitter as ThinkSplitter
from .translate import ThinkTags as ThinkTags
from .translate import finish_from_wire as finish_from_wire
from .translate import usage_from_wire as usage_from_wire
from .wire import ChatChunk as ChatChunk
from .wire import parse_chat_chunk as parse_chat_chunk

if _typing.TYPE_CHECKING:
    from .adapter import USER_AGENT as USER_AGENT
    from .adapter import DeepSeekAdapter as DeepSeekAdapter
    from .drain import DrainBudget as DrainBudget
    from .drain import drain_body as drain_body
    from .plugin import DeepSeekPlugin as DeepSeekPlugin

_LAZY = {
    "USER_AGENT": "adapter",
    "DeepSeekAdapter": "adapter",
    "DrainBudget": "drain",
    "drain_body": "drain",
    "DeepSeekPlugin": "plugin",
}


def __getattr__(name: str) -> _typing.Any:  # Any: PEP 562 hook; each name keeps its declared type
    """Import an httpx-backed name on first use. Raises AttributeError for unknown names."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


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
    "ModelTimeouts",
    "ReasoningEffort",
    "ReasoningField",
    "RequestEncoder",
    "StreamTranslator",
    "ThinkSplitter",
    "ThinkTags",
    "Thinking",
    "WireRules",
    "display_url",
    "drain_body",
    "error_from_payload",
    "error_from_response",
    "finish_from_wire",
    "key_required",
    "normalize_base_url",
    "parse_chat_chunk",
    "serialize_request",
    "usage_from_wire",
    "wire_messages",
    "wire_rules",
)
