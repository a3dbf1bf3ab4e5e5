"""The OpenAI-compatible streaming wire format and its validators (llm.deepseek layer).

Only what the adapter reads is declared; every other envelope field is dropped. Each shape is
a ``TypedDict`` (the static type) paired with a pydantic-core validator built from the same
field names (the runtime check; a test keeps the two in step). Validated payloads are plain
dicts, which keeps per-event validation cheap on long streams. Anything that does not fit is a
``MALFORMED_RESPONSE`` for the adapter.

Content given as a list of parts (Mistral's reasoning models) is flattened: ``text`` parts
become ``content``, ``thinking`` parts ``reasoning_content``. Tool-call ``arguments`` sent as a
JSON object instead of JSON text are encoded back to text. Two error spellings are normalised
on the way in: ``"error": "text"`` (a bare string) becomes
``{"message": "text"}``, and a payload that is itself an error object (``{"object": "error",
"message": …, "code": 400}``, as vLLM sends) is read as ``{"error": {…}}``.
"""

from __future__ import annotations

import json
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
    """Usage as reported; ``prompt_tokens`` includes cache hits (reported as
    ``prompt_tokens_details.cached_tokens``, DeepSeek's ``prompt_cache_hit_tokens`` or Moonshot's
    top-level ``cached_tokens``)."""

    prompt_tokens: int | None
    completion_tokens: int | None
    prompt_cache_hit_tokens: int | None
    cached_tokens: int | None
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


class GroqExtras(TypedDict, total=False):
    """Groq's ``x_groq`` envelope, where older Groq streams put the usage."""

    usage: WireUsage | None


class ChatChunk(TypedDict, total=False):
    """One ``data:`` payload of the stream."""

    choices: list[Choice] | None
    usage: WireUsage | None
    error: WireError | None
    x_groq: GroqExtras | None
    object: str | None


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


def _part_text(part: object) -> str:
    """The text inside one content part (``{"text": …}`` or a list of such parts)."""
    if isinstance(part, str):
        return part
    if isinstance(part, list):
        return "".join(_part_text(p) for p in part)
    if isinstance(part, dict):
        for key in ("text", "thinking", "reasoning"):
            if key in part:
                return _part_text(part[key])
    return ""


def _flatten_content(value: object) -> object:
    """A delta whose ``content`` is a list of parts, as one with text ``content`` and
    ``reasoning_content``; anything else unchanged. Tool arguments given as objects are
    encoded as JSON text."""
    if not isinstance(value, dict):
        return value
    content = value.get("content")
    calls = value.get("tool_calls")
    if not isinstance(content, list) and not calls:
        return value  # the common case: nothing to rewrite, no copy
    out = dict(value)
    if isinstance(content, list):
        text: list[str] = []
        thinking: list[str] = []
        for part in content:
            kind = part.get("type") if isinstance(part, dict) else "text"
            (thinking if kind in ("thinking", "reasoning") else text).append(_part_text(part))
        out["content"] = "".join(text)
        if thinking and not out.get("reasoning_content"):
            out["reasoning_content"] = "".join(thinking)
    if isinstance(calls, list):
        fixed: list[object] = []
        for call in calls:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and isinstance(function.get("arguments"), dict | list):
                encoded = json.dumps(function["arguments"], separators=(",", ":"))
                call = {**call, "function": {**function, "arguments": encoded}}
            fixed.append(call)
        out["tool_calls"] = fixed
    return out


_DELTA_FIELDS: dict[str, cs.CoreSchema] = {
    "content": _STR,
    "reasoning_content": _STR,
    "reasoning": _STR,
    "tool_calls": cs.list_schema(_TOOL_CALL),
}
_DELTA = _shape(_DELTA_FIELDS)
_LENIENT_DELTA = cs.no_info_before_validator_function(_flatten_content, _shape(_DELTA_FIELDS))
_CHOICE = _shape({"delta": _DELTA, "message": _DELTA, "finish_reason": _STR})
_LENIENT_CHOICE = _shape(
    {"delta": _LENIENT_DELTA, "message": _LENIENT_DELTA, "finish_reason": _STR}
)
_USAGE = _shape(
    {
        "prompt_tokens": _INT,
        "completion_tokens": _INT,
        "prompt_cache_hit_tokens": _INT,
        "cached_tokens": _INT,
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


def _message_only(text: str) -> dict[str, str]:
    return {"message": text}


def _lift_bare_error(value: object) -> object:
    """``{"object": "error", …}`` without ``choices`` or ``error`` → ``{"error": {…}}``."""
    if (
        isinstance(value, dict)
        and value.get("object") == "error"
        and "error" not in value
        and "choices" not in value
    ):
        return {"error": value}
    return value


_ERROR_OR_TEXT = cs.union_schema([_ERROR, cs.no_info_after_validator_function(_message_only, _STR)])


def _chat_chunk(choice: cs.CoreSchema) -> cs.TypedDictSchema:
    return _shape(
        {
            "choices": cs.list_schema(choice),
            "usage": _USAGE,
            "error": _ERROR_OR_TEXT,
            "x_groq": _shape({"usage": _USAGE}),
            "object": _STR,
        }
    )


CHAT_CHUNK_VALIDATOR = SchemaValidator(_chat_chunk(_CHOICE))
"""Validates one stream payload into a ``ChatChunk``: the fast path, no Python callbacks."""

LENIENT_CHAT_CHUNK_VALIDATOR = SchemaValidator(
    cs.no_info_before_validator_function(_lift_bare_error, _chat_chunk(_LENIENT_CHOICE))
)
"""Validates one stream payload into a ``ChatChunk``."""

ERROR_BODY_VALIDATOR = SchemaValidator(
    cs.no_info_before_validator_function(
        _lift_bare_error,
        cs.typed_dict_schema(
            {"error": cs.typed_dict_field(_ERROR_OR_TEXT, required=True)},
            extra_behavior="ignore",
        ),
    )
)
"""Validates a non-2xx body into an ``ErrorBody``."""


def parse_chat_chunk(data: str) -> ChatChunk:
    """Validate one event payload. Raises ``LlmError`` (``MALFORMED_RESPONSE``).

    The fast validator reads the usual shapes; a payload it rejects, or one that is itself an
    error object, goes through the lenient one (content parts, object arguments, bare errors).
    """
    try:
        # The validators' schemas declare exactly ChatChunk's fields (checked by a test).
        chunk = cast(ChatChunk, CHAT_CHUNK_VALIDATOR.validate_json(data))
        if chunk.get("object") != "error" or "error" in chunk:
            return chunk
    except ValidationError:
        pass
    try:
        return cast(ChatChunk, LENIENT_CHAT_CHUNK_VALIDATOR.validate_json(data))
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
