"""Server errors and the one translation from ``DshError`` to a JSON-RPC error (server layer).

Tree (the root lives in the kernel)::

    DshError                   dsh_lsp.kernel
     └── ServerError           a dsh/* request that cannot be served
          ├── UnknownSessionError   UNKNOWN_SESSION  → -32602
          ├── TurnRunningError      TURN_RUNNING     → -32803
          ├── TurnFailedError       the turn's own code (AUTH, RATE_LIMIT, …) → -32803
          └── TurnNotStoredError    SESSION_NOT_STORED → -32803

``to_jsonrpc`` maps any ``DshError``: unknown sessions and invalid settings are invalid
params (-32602); everything else is ``RequestFailed`` (-32803). The error's ``data.code`` is
always the harness code, and the message is the one a user can act on (``user_message``).
"""

from __future__ import annotations

from typing import ClassVar, Final

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from dsh_lsp.kernel import DshError
from dsh_lsp.llm import JsonValue, LlmCode, SessionId

from .settings import SettingsError

REQUEST_FAILED: Final = -32803
"""LSP ``RequestFailed``: the request was valid but could not be carried out."""


class ServerError(DshError):
    """A ``dsh/*`` request that cannot be served."""

    code: ClassVar[str] = "SERVER_ERROR"


class UnknownSessionError(ServerError):
    """No session with that id exists (live or stored)."""

    code: ClassVar[str] = "UNKNOWN_SESSION"

    def __init__(self, session_id: SessionId) -> None:
        super().__init__(f"unknown session {session_id!r}: no live or stored session has that id")


class TurnRunningError(ServerError):
    """A prompt arrived while the session still answers another one."""

    code: ClassVar[str] = "TURN_RUNNING"

    def __init__(self, session_id: SessionId) -> None:
        super().__init__(
            f"session {session_id!r} is still answering a prompt; wait for its response or "
            "send dsh/cancel first"
        )


class TurnFailedError(ServerError):
    """The turn ended with an error; ``code`` is the error's own code."""

    def __init__(self, message: str, *, code: str, step: int | None = None) -> None:
        super().__init__(message, code=code)
        self.step = step


class TurnNotStoredError(ServerError):
    """The turn ran, but the session store refused or failed to write it, so a restart
    would lose it; ``cause`` is the store's message."""

    code: ClassVar[str] = "SESSION_NOT_STORED"

    def __init__(self, session_id: str, cause: str) -> None:
        super().__init__(
            f"session {session_id!r}: the turn could not be stored and would be lost on"
            f" restart ({cause})"
        )


_HINTS: Final[dict[str, str]] = {
    LlmCode.AUTH: (
        "Set the API key variable (DEEPSEEK_API_KEY, or the one named by dsh.model.apiKeyEnv) "
        "in the environment the editor starts dsh-lsp from, then restart the server."
    ),
    LlmCode.QUOTA_EXCEEDED: "The model account has no balance or quota left; top it up.",
    LlmCode.RATE_LIMIT: "The provider is rate-limiting requests; wait a moment, then resend.",
    LlmCode.TIMEOUT: "The model did not answer in time; check the network and resend.",
    LlmCode.TRANSPORT: (
        "The model endpoint could not be reached; check dsh.model.baseUrl (or "
        "DEEPSEEK_BASE_URL) and the network."
    ),
    LlmCode.CONTEXT_WINDOW_EXCEEDED: (
        "The conversation no longer fits the model's context window; start a new session."
    ),
    LlmCode.NO_ADAPTER: "Check dsh.model.name: no configured endpoint serves that model.",
    TurnNotStoredError.code: (
        "Check that the session directory (dsh.sessionDir) is writable and has space left."
    ),
}


def user_message(message: str, code: str) -> str:
    """``message`` followed by what the user can do about ``code``, when we know."""
    hint = _HINTS.get(code)
    return message if hint is None else f"{message}. {hint}"


def to_jsonrpc(error: DshError) -> JsonRpcException:
    """The JSON-RPC error for ``error`` (see the module docstring)."""
    data: dict[str, JsonValue] = {"code": error.code}
    if isinstance(error, TurnFailedError) and error.step is not None:
        data["step"] = error.step
    if isinstance(error, UnknownSessionError | SettingsError):
        return JsonRpcInvalidParams(str(error), data=data)
    return JsonRpcException(user_message(str(error), error.code), REQUEST_FAILED, data=data)
