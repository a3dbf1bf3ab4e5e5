"""Provider failures → coded ``LlmError``s (llm.deepseek layer).

Pure. ``error_from_response`` codes a non-2xx response from its status, the body bytes and the
already-parsed ``Retry-After`` wait; ``error_from_payload`` codes an error object that came
with a 200 — inside the stream (``data: {"error": …}``) or as a whole JSON body — from the
object's own fields. The provider's message comes from an ``{"error": {"message": …}}`` body;
any other body contributes at most a short, whitespace-collapsed excerpt. OpenRouter's
``error.metadata`` (the upstream provider's name and its raw body) is appended to the message,
so "Provider returned error" says which provider and what it said. ``redact`` removes the
credential from provider text before it is kept, in case a gateway echoes request headers.

Status table for a non-2xx response:

==========  ==================================================================
status      code
==========  ==================================================================
400         ``CONTEXT_WINDOW_EXCEEDED`` when the message speaks of the context
            length, else ``INVALID_REQUEST``
401, 403    ``AUTH``
402         ``QUOTA_EXCEEDED``
408         ``TIMEOUT``
413, 422    ``INVALID_REQUEST``
429         ``RATE_LIMIT``
5xx         ``SERVER``
other       ``HTTP_<status>``
==========  ==================================================================

An error object that came with a 200 is coded by its first telling field: a numeric ``code``
or ``status`` in 400-599 goes through the table above; otherwise the ``code``, ``type`` and
``status`` strings are looked up in that order (``context_length_exceeded`` →
``CONTEXT_WINDOW_EXCEEDED``, ``invalid_request_error`` → ``INVALID_REQUEST``,
``rate_limit_exceeded`` → ``RATE_LIMIT``, ``overloaded_error`` → ``SERVER``, gRPC-style
``RESOURCE_EXHAUSTED``/``UNAVAILABLE``…); an object that tells nothing is ``SERVER``. Only the
transient classes are retried (``RETRYABLE_CODES``), so a deterministic 400 fails at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from dsh_lsp.llm.errors import LlmCode, LlmError

from .wire import WireError, parse_error_body

_CODES = {
    401: LlmCode.AUTH,
    402: LlmCode.QUOTA_EXCEEDED,
    403: LlmCode.AUTH,
    408: LlmCode.TIMEOUT,
    413: LlmCode.INVALID_REQUEST,
    422: LlmCode.INVALID_REQUEST,
    429: LlmCode.RATE_LIMIT,
}

_CONTEXT_WORDING = re.compile(
    r"context[ _-]?(length|window)|maximum context|too many tokens|prompt is too long"
    r"|exceeds? the (model'?s? )?(context|maximum|token limit)",
    re.IGNORECASE,
)

EXCERPT_CHARS = 200
"""How much of a non-JSON error body is kept."""


_NAMED = {
    **dict.fromkeys(
        (
            "invalid_request_error",
            "invalid_request",
            "bad_request",
            "bad_request_error",
            "invalid_argument",
            "failed_precondition",
            "not_found",
            "not_found_error",
            "model_not_found",
        ),
        LlmCode.INVALID_REQUEST,
    ),
    **dict.fromkeys(
        (
            "authentication_error",
            "unauthenticated",
            "invalid_api_key",
            "permission_error",
            "permission_denied",
        ),
        LlmCode.AUTH,
    ),
    **dict.fromkeys(
        ("insufficient_quota", "payment_required", "billing_error"), LlmCode.QUOTA_EXCEEDED
    ),
    **dict.fromkeys(
        ("rate_limit_error", "rate_limit_exceeded", "rate_limited", "too_many_requests"),
        LlmCode.RATE_LIMIT,
    ),
    "resource_exhausted": LlmCode.RATE_LIMIT,
    "context_length_exceeded": LlmCode.CONTEXT_WINDOW_EXCEEDED,
    **dict.fromkeys(
        (
            "server_error",
            "api_error",
            "internal",
            "internal_error",
            "internal_server_error",
            "overloaded",
            "overloaded_error",
            "service_unavailable",
            "unavailable",
            "bad_gateway",
        ),
        LlmCode.SERVER,
    ),
    **dict.fromkeys(("timeout", "deadline_exceeded", "request_timeout"), LlmCode.TIMEOUT),
}
"""Error ``type``/``code``/``status`` strings (lower-cased) and the class each names."""


def _excerpt(body: bytes) -> str | None:
    text = " ".join(body.decode("utf-8", "replace").split())
    return text[:EXCERPT_CHARS] or None


def _raw_text(raw: object) -> str | None:
    """The upstream message inside OpenRouter's ``metadata.raw`` (JSON text or an object)."""
    if raw is None:
        return None
    if isinstance(raw, str):
        parsed = parse_error_body(raw.encode("utf-8"))
        if parsed is None:
            return _excerpt(raw.encode("utf-8"))
        return parsed["error"].get("message") or _excerpt(raw.encode("utf-8"))
    if isinstance(raw, dict):
        inner = raw.get("error")
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
    return _excerpt(str(raw).encode("utf-8"))


def error_text(error: WireError) -> str | None:
    """The provider's wording of ``error``, with OpenRouter's upstream name and raw message."""
    message = error.get("message")
    metadata = error.get("metadata") or {}
    raw = _raw_text(metadata.get("raw"))
    provider = metadata.get("provider_name")
    if raw is None and provider is None:
        return message
    upstream = f"{provider}: {raw}" if provider and raw else (raw or str(provider))
    return f"{message} ({upstream})" if message else upstream


def _provider_message(body: bytes) -> str | None:
    parsed = parse_error_body(body)
    if parsed is None:
        return _excerpt(body)
    return error_text(parsed["error"])


def _code(status: int, provider_message: str | None) -> str:
    if status == 400:
        wording = provider_message or ""
        return (
            LlmCode.CONTEXT_WINDOW_EXCEEDED
            if _CONTEXT_WORDING.search(wording)
            else LlmCode.INVALID_REQUEST
        )
    if status >= 500:
        return LlmCode.SERVER
    return _CODES.get(status, LlmCode.http(status))


def _numeric(value: str | int | None) -> int | None:
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def payload_code(error: WireError, provider_message: str | None) -> str:
    """The ``LlmCode`` an error object names by its own fields (see the module docstring)."""
    for field in (error.get("code"), error.get("status")):
        number = _numeric(field)
        if number is not None and 400 <= number <= 599:
            return _code(number, provider_message)
    for field in (error.get("code"), error.get("type"), error.get("status")):
        if isinstance(field, str):
            named = _NAMED.get(field.strip().lower())
            if named is not None:
                if named == LlmCode.INVALID_REQUEST:
                    return _code(400, provider_message)
                return named
    return LlmCode.SERVER


def error_from_payload(
    error: WireError, *, where: str, redact: Callable[[str], str] = str
) -> LlmError:
    """The ``LlmError`` for an error object that came with a 200 ``where`` (``"mid-stream"``,
    ``"as the response body"``), coded by its own fields."""
    provider_message = error_text(error)
    if provider_message is not None:
        provider_message = redact(provider_message)
    code = payload_code(error, provider_message)
    label = error.get("code") if error.get("code") is not None else error.get("type")
    detail = "" if label is None else f", code {label}"
    message = provider_message or "the provider reported an error"
    return LlmError(
        f"model API error ({where}{detail}): {message}",
        code=code,
        provider_message=provider_message,
    )


def error_from_response(
    status: int,
    body: bytes,
    *,
    retry_after: float | None,
    redact: Callable[[str], str],
) -> LlmError:
    """The ``LlmError`` for a non-2xx response (see the module table)."""
    provider_message = _provider_message(body)
    if provider_message is not None:
        provider_message = redact(provider_message)
    message = f"model API error (HTTP {status})"
    if provider_message:
        message = f"{message}: {provider_message}"
    return LlmError(
        message,
        code=_code(status, provider_message),
        status=status,
        provider_message=provider_message,
        retry_after=retry_after,
    )
