"""LlmError: the model layer's failures, each with a stable machine-routable code (llm layer).

Tree (the root lives in the kernel)::

    DshError                      dsh_lsp.kernel
     └── LlmError                 every failure of a model call, a registry or a record

An ``LlmError`` ends the *turn* that made the call; the agent lives on. The code says who must
act; ``status`` keeps the HTTP status when there was one and ``provider_message`` the provider's
own wording. Messages never contain credentials: adapters build them from the status and the
provider's error text only.
"""

from __future__ import annotations

from typing import ClassVar, Final

from dsh_lsp.kernel import DshError


class LlmCode:
    """The stable codes an ``LlmError`` carries (a namespace of plain strings)."""

    AUTH: Final = "AUTH"
    """The provider rejected the credentials (HTTP 401/403) or none were configured."""
    QUOTA_EXCEEDED: Final = "QUOTA_EXCEEDED"
    """The account has no balance or quota left (HTTP 402)."""
    RATE_LIMIT: Final = "RATE_LIMIT"
    """Too many requests (HTTP 429); retried before the first chunk."""
    INVALID_REQUEST: Final = "INVALID_REQUEST"
    """The request is malformed or unencodable (HTTP 400/413/422, or NaN in the body)."""
    CONTEXT_WINDOW_EXCEEDED: Final = "CONTEXT_WINDOW_EXCEEDED"
    """The prompt does not fit the model's context window (HTTP 400 with overflow wording)."""
    SERVER: Final = "SERVER"
    """The provider failed (HTTP 5xx or an error object inside the stream)."""
    TIMEOUT: Final = "TIMEOUT"
    """Connecting took too long, the stream went idle past the read timeout, or HTTP 408."""
    TRANSPORT: Final = "TRANSPORT"
    """The connection failed or broke (refused, reset, closed mid-body)."""
    EMPTY_RESPONSE: Final = "EMPTY_RESPONSE"
    """A successful status with a body that held no event at all."""
    MALFORMED_RESPONSE: Final = "MALFORMED_RESPONSE"
    """An event payload that is not the JSON shape the adapter expects."""
    STREAM_CLOSED: Final = "STREAM_CLOSED"
    """The body ended cleanly but before the ``[DONE]`` sentinel."""
    NO_ADAPTER: Final = "NO_ADAPTER"
    """No adapter is registered for the requested model name."""
    DUPLICATE_ADAPTER: Final = "DUPLICATE_ADAPTER"
    """A second adapter was registered for a model name that already has one."""
    DUPLICATE_BLOCK_TYPE: Final = "DUPLICATE_BLOCK_TYPE"
    """A second, different block class was registered under a block kind already in use."""
    DUPLICATE_KIND: Final = "DUPLICATE_KIND"
    """A plugin class claimed a kind of an open vocabulary (finish reason, message source,
    turn trigger, turn-end reason, event payload) that is core or registered by another."""
    MALFORMED_RECORD: Final = "MALFORMED_RECORD"
    """Persisted JSON (a chunk, block or message record) does not decode to a vocabulary value."""
    REPLAY_EXHAUSTED: Final = "REPLAY_EXHAUSTED"
    """A replay adapter was asked for more model calls than its recording holds."""

    @staticmethod
    def http(status: int) -> str:
        """The fallback code for an HTTP status no specific code covers: ``HTTP_<status>``."""
        return f"HTTP_{status}"


class LlmError(DshError):
    """A model call, adapter registry or vocabulary record failed; ``code`` says how.

    ``status`` is the HTTP status of the failed response, if any. ``provider_message`` is the
    provider's own error text, if its body carried one. ``retry_after`` is the wait in seconds
    the provider asked for (``Retry-After``), if any. Raised by adapters, ``LlmService`` and
    the JSON codecs; the agent loop catches it at the turn boundary.
    """

    code: ClassVar[str] = "LLM_ERROR"

    def __init__(
        self,
        message: str,
        *,
        code: str,
        status: int | None = None,
        provider_message: str | None = None,
        retry_after: float | None = None,
        cause: BaseException | None = None,
    ) -> None:
        super().__init__(message, code=code, cause=cause)
        self.status = status
        self.provider_message = provider_message
        self.retry_after = retry_after

    def __repr__(self) -> str:
        status = "" if self.status is None else f", status={self.status}"
        return f"LlmError({self.args[0]!r}, code={self.code!r}{status})"
