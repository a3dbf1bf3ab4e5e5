"""The OpenAI-compatible streaming wire format and its validators (llm.deepseek layer).

Only what the adapter reads is declared; every other envelope field is dropped. Each shape is
a ``TypedDict`` (the static type) paired with a pydantic-core validator built from the same
field names (the runtime check; a test keeps the two in step). Validated payloads are plain
dicts, which keeps per-event validation cheap on long streams. Anything that does not fit is a
``MALFORMED_RESPONSE`` for the adapter.
"""

from __future__ import annotations

from typing import TypedDict, cast

from pydantic_core import SchemaValidator, ValidationError
from pydantic_core import core_schema as cs

from dsh_lsp.llm.errors import LlmCode, LlmError


class FunctionFragment(TypedDict, total=False):
    """Part of a tool call's function: the name (first fragment) and an argument slice."""

    name: str | None
    arguments: str | None


class ToolCallFragment(TypedDict, total=False):
    """One entry of ``delta.tool_calls``; ``index`` tells parallel calls apart."""

    index: int | None
    id: str | None
    function: FunctionFragment | None


class Delta(TypedDict, total=False):
    """What one chunk adds to the answer; reasoning comes as ``reasoning_content`` (DeepSeek,
    SGLang, llama.cpp, older vLLM) or ``reasoning`` (OpenRouter, Groq, current vLLM, Ollama)."""

    content: str | None
    reasoning_content: str | None
    reasoning: str | None
    tool_calls: list[ToolCallFragment] | None


class Choice(TypedDict, total=False):
    """One choice of a chunk (the adapter asks for one and reads the first); a server that
    answered without streaming sends the whole ``message`` instead of a ``delta``."""

    delta: Delta | None
    message: Delta | None
    finish_reason: str | None


class PromptTokensDetails(TypedDict, total=False):
    """Breakdown of the prompt tokens."""

    cached_tokens: int | None


class CompletionTokensDetails(TypedDict, total=False):
    """Breakdown of the completion tokens."""

    reasoning_tokens: int | None


class WireUsage(TypedDict, total=False):
    """Usage as reported; ``prompt_tokens`` includes cache hits."""

    prompt_tokens: int | None
    completion_tokens: int | None
    prompt_cache_hit_tokens: int | None
    prompt_tokens_details: PromptTokensDetails | None
    completion_tokens_details: CompletionTokensDetails | None


class ErrorMetadata(TypedDict, total=False):
    """OpenRouter's detail on an upstream failure: the provider's own body and its name."""

    raw: object
    provider_name: str | None


class WireError(TypedDict, total=False):
    """An error object, in an error response body or inside the stream."""

    message: str | None
    type: str | None
    code: str | int | None
    status: str | int | None
    metadata: ErrorMetadata | None


class ChatChunk(TypedDict, total=False):
    """One ``data:`` payload of the stream."""

    choices: list[Choice] | None
    usage: WireUsage | None
    error: WireError | None


class ErrorBody(TypedDict):
    """A non-2xx response body: ``{"error": {"message": …}}``."""

    error: WireError


def _shape(fields: dict[str, cs.CoreSchema], *, required: bool = False) -> cs.TypedDictSchema:
    """A typed-dict schema whose fields are all nullable, dropping undeclared keys."""
    return cs.typed_dict_schema(
        {
            name: cs.typed_dict_field(cs.nullable_schema(schema), required=required)
            for name, schema in fields.items()
        },
        extra_behavior="ignore",
    )


_STR = cs.str_schema()
_INT = cs.int_schema()
_FUNCTION = _shape({"name": _STR, "arguments": _STR})
_TOOL_CALL = _shape({"index": _INT, "id": _STR, "function": _FUNCTION})
_DELTA = _shape(
    {
        "content": _STR,
        "reasoning_content": _STR,
        "reasoning": _STR,
        "tool_calls": cs.list_schema(_TOOL_CALL),
    }
)
_CHOICE = _shape({"delta": _DELTA, "message": _DELTA, "finish_reason": _STR})
_USAGE = _shape(
    {
        "prompt_tokens": _INT,
        "completion_tokens": _INT,
        "prompt_cache_hit_tokens": _INT,
        "prompt_tokens_details": _shape({"cached_tokens": _INT}),
        "completion_tokens_details": _shape({"reasoning_tokens": _INT}),
    }
)
_STR_OR_INT = cs.union_schema([_STR, _INT])
_METADATA = _shape({"raw": cs.any_schema(), "provider_name": _STR})
_ERROR = _shape(
    {
        "message": _STR,
        "type": _STR,
        "code": _STR_OR_INT,
        "status": _STR_OR_INT,
        "metadata": _METADATA,
    }
)
_CHAT_CHUNK = _shape({"choices": cs.list_schema(_CHOICE), "usage": _USAGE, "error": _ERROR})

CHAT_CHUNK_VALIDATOR = SchemaValidator(_CHAT_CHUNK)
"""Validates one stream payload into a ``ChatChunk``."""

ERROR_BODY_VALIDATOR = SchemaValidator(
    cs.typed_dict_schema(
        {"error": cs.typed_dict_field(_ERROR, required=True)}, extra_behavior="ignore"
    )
)
"""Validates a non-2xx body into an ``ErrorBody``."""


def parse_chat_chunk(data: str) -> ChatChunk:
    """Validate one event payload. Raises ``LlmError`` (``MALFORMED_RESPONSE``)."""
    try:
        # The validator's schema declares exactly ChatChunk's fields (checked by a test).
        return cast(ChatChunk, CHAT_CHUNK_VALIDATOR.validate_json(data))
    except ValidationError as exc:
        raise LlmError(
            f"the model API sent an unreadable event: {data[:200]!r}",
            code=LlmCode.MALFORMED_RESPONSE,
            cause=exc,
        ) from exc


def parse_error_body(body: bytes) -> ErrorBody | None:
    """The error object of a non-2xx body, or ``None`` when the body has another shape."""
    try:
        # The validator's schema declares exactly ErrorBody's fields (checked by a test).
        return cast(ErrorBody, ERROR_BODY_VALIDATOR.validate_json(body))
    except ValidationError:
        return None
