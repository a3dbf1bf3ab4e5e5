"""SessionError: the session layer's failures, each with a stable code (session layer).

Tree (the root lives in the kernel)::

    DshError                      dsh_lsp.kernel
     └── SessionError             a rejected append or seed, or a persistence failure

``code`` routes the failure: a caller fixes its event (``SESSION_INVALID_EVENT``), picks
another id (``SESSION_EXISTS``), or reports a damaged store (``SESSION_CORRUPT``). Messages
name the session, file and line (or row) involved, never event payloads.
"""

from __future__ import annotations

from typing import ClassVar, Final

from dsh_lsp.kernel import DshError

INVALID_EVENT: Final = "SESSION_INVALID_EVENT"
"""``Session.append`` refused an event: bad type, non-JSON data, or a broken surfaceOp rule."""
INVALID_SEED: Final = "SESSION_INVALID_SEED"
"""Seed events handed to a new ``Session`` are not a valid log prefix."""
NOT_FOUND: Final = "SESSION_NOT_FOUND"
"""No session with that id is live (store) or stored (persistence)."""
EXISTS: Final = "SESSION_EXISTS"
"""A session with that id is already live or already stored."""
SEQ_MISMATCH: Final = "SESSION_SEQ_MISMATCH"
"""A persistence append does not continue the stored log exactly at its cursor."""
CORRUPT: Final = "SESSION_CORRUPT"
"""A stored log is damaged before its last completed turn; the message names file and line."""
UNSUPPORTED_VERSION: Final = "SESSION_UNSUPPORTED_VERSION"
"""A stored header carries a format version this build does not read."""
IO_FAILED: Final = "SESSION_IO"
"""Reading or writing the store failed; ``__cause__`` is the OS or database error."""
NO_PERSISTENCE: Final = "SESSION_NO_PERSISTENCE"
"""A resume needs the persistence service and none is provided."""


class SessionError(DshError):
    """A session event, seed or store operation was refused or failed; ``code`` says which.

    Raised by ``Session.append`` and the ``Session`` constructor (invalid input, nothing
    changed), by ``SessionStore`` (unknown or duplicate ids) and by persistence backends
    (corruption, sequence mismatches, I/O failures with the OS error as ``__cause__``).
    """

    code: ClassVar[str] = "SESSION_ERROR"
