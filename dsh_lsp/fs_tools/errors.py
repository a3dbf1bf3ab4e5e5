"""FsError: every failure of the filesystem seam, with a stable code (fs_tools layer).

Tree (the root lives in the kernel)::

    DshError                      dsh_lsp.kernel
     └── FsError                  FS_ERROR (default; every instance narrows it to a code below)

Providers raise only ``FsError`` (foreign ``OSError``/``UnicodeDecodeError`` are translated
once, with the original as ``__cause__``); policies raise it from intent listeners; the file
tools let it propagate so the tool registry turns it into an error result the model reads.
Messages name the path and say what to do next, because the model is the one that acts on them.
"""

from __future__ import annotations

from typing import ClassVar, Final, Literal, get_args

from dsh_lsp.kernel import DshError

FsCode = Literal[
    "FS_NOT_FOUND",
    "FS_NOT_DIRECTORY",
    "FS_NOT_TEXT",
    "FS_NOT_REGULAR_FILE",
    "FS_PERMISSION_DENIED",
    "FS_IO_ERROR",
    "FS_STALE_VERSION",
    "FS_NOT_OBSERVED",
    "FS_AMBIGUOUS_EDIT",
    "FS_EDIT_NOT_FOUND",
    "FS_OUTSIDE_WORKSPACE",
    "FS_PROTECTED_PATH",
    "FS_INVALID_PATH",
    "FS_TOO_LARGE",
    "FS_INVALID_PATTERN",
]
"""The closed set of filesystem failure codes."""

FS_CODES: Final[tuple[FsCode, ...]] = get_args(FsCode)
"""Every ``FsCode``, in a stable order (documentation and exhaustive tests)."""


class FsError(DshError):
    """A filesystem operation failed or was refused; ``code`` (an ``FsCode``) says which.

    ``FS_NOT_FOUND`` / ``FS_NOT_DIRECTORY`` / ``FS_NOT_REGULAR_FILE``: the path is not what the
    call needs. ``FS_NOT_TEXT``: binary content (a NUL byte) or invalid UTF-8.
    ``FS_STALE_VERSION``: the file changed (or vanished) since the version the caller holds.
    ``FS_NOT_OBSERVED``: the caller never read the file it wants to edit or overwrite.
    ``FS_AMBIGUOUS_EDIT`` / ``FS_EDIT_NOT_FOUND``: a literal edit matched several times or never.
    ``FS_OUTSIDE_WORKSPACE``: a write or edit resolves (after symlinks) outside every workspace
    root. ``FS_PROTECTED_PATH``: a write or edit inside a ``.git`` directory.
    ``FS_INVALID_PATH``: empty or NUL-carrying path. ``FS_INVALID_PATTERN``: a search regex
    or glob that does not compile. ``FS_TOO_LARGE``: over a size limit.
    ``FS_PERMISSION_DENIED`` / ``FS_IO_ERROR``: the operating system refused or failed.
    Cancellation is not an error code: it arrives as anyio cancellation of the awaiting task.
    """

    code: ClassVar[str] = "FS_ERROR"

    def __init__(self, code: FsCode, message: str, *, cause: BaseException | None = None) -> None:
        super().__init__(message, code=code, cause=cause)
        self.fs_code: FsCode = code
