"""Non-2xx responses → coded ``LlmError``s (llm.deepseek layer).

Pure: takes the status, the body bytes and the already-parsed ``Retry-After`` wait. The
provider's message comes from an ``{"error": {"message": …}}`` body; any other body
contributes at most a short, whitespace-collapsed excerpt. ``redact`` removes the credential
from provider text before it is kept, in case a gateway echoes request headers.

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
"""

from __future__ import annotations

import re
from collections.abc import Callable

from dsh_lsp.llm.errors import LlmCode, LlmError

from .wire import parse_error_body

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


def _provider_message(body: bytes) -> str | None:
    parsed = parse_error_body(body)
    if parsed is None:
        text = " ".join(body.decode("utf-8", "replace").split())
        return text[:EXCERPT_CHARS] or None
    return parsed["error"].get("message")


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
