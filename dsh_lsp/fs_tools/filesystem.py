"""FileSystem: the seam every file tool talks through, and its service key (fs_tools layer).

Seven primitives, all async, all raising only ``FsError``. A provider (``LocalFileSystem`` for
the disk; an editor-backed one for open buffers) is loaded as a plugin that provides ``FS``;
tools and policies never know which one runs. Cancellation is anyio cancellation of the
awaiting task: a cancelled write either completed or left the file untouched.

Contract (``dsh_lsp.testing.fs_contract`` checks it against real directories):

- ``resolve``: relative paths join ``cwd`` (else the provider's default directory); the same
  file through any spelling or symlink yields the same ``key``. Empty or NUL-carrying paths
  raise ``FS_INVALID_PATH``. Resolving never requires the path to exist.
- ``stat``: ``None`` for a missing path; never reads content.
- ``read_text`` / ``stream_text``: regular files only; strict UTF-8; a NUL byte in the first
  8192 bytes means binary (``FS_NOT_TEXT``); a leading byte-order mark is not part of the text.
- ``list_dir``: one level, sorted by name, no content read.
- ``write_text``: create or replace atomically under the guard; creates missing parent
  directories; refuses targets outside the workspace (``FS_OUTSIDE_WORKSPACE``) and inside
  ``.git`` (``FS_PROTECTED_PATH``).
- ``edit_text``: in one per-target critical section: existence, type, the expected version
  (before any matching), then every ``LiteralEdit`` in order on ``\\n``-normalized text, then one
  atomic write that restores the file's line endings and byte-order mark. All edits apply or
  none do.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from typing import Protocol

from dsh_lsp.kernel import ServiceKey

from .guards import ExpectVersion, LiteralEdit, WriteGuard
from .outcomes import FsEditOutcome, FsWriteOutcome
from .target import FsDirEntry, FsInfo, FsTarget


class FileSystem(Protocol):
    """The filesystem capability; see the module docstring for the full contract."""

    async def resolve(self, path: str, *, cwd: str | None = None) -> FsTarget:
        """Resolve ``path`` (relative to ``cwd`` or the provider default) to a target.

        Raises FsError ``FS_INVALID_PATH`` for an empty path or one containing NUL.
        """
        ...

    async def stat(self, target: FsTarget) -> FsInfo | None:
        """Type, version and size of the target, or None when nothing exists there.

        Raises FsError ``FS_PERMISSION_DENIED`` / ``FS_IO_ERROR``.
        """
        ...

    async def read_text(self, target: FsTarget) -> str:
        """The whole text of a regular file (no byte-order mark, line endings as stored).

        Raises FsError ``FS_NOT_FOUND``, ``FS_NOT_REGULAR_FILE``, ``FS_NOT_TEXT``,
        ``FS_TOO_LARGE`` (use ``stream_text``), ``FS_PERMISSION_DENIED``, ``FS_IO_ERROR``.
        """
        ...

    def stream_text(self, target: FsTarget) -> AsyncGenerator[str, None]:
        """The text of a regular file in chunks of any size, for files too large to hold.

        Same rules and errors as ``read_text`` (except the size limit), raised while
        iterating. The caller owns the iterator and closes it (``aclose``) if it stops early.
        """
        ...

    async def list_dir(self, target: FsTarget) -> tuple[FsDirEntry, ...]:
        """The entries of a directory, sorted by name.

        Raises FsError ``FS_NOT_FOUND``, ``FS_NOT_DIRECTORY``, ``FS_PERMISSION_DENIED``,
        ``FS_IO_ERROR``.
        """
        ...

    async def write_text(
        self, target: FsTarget, content: str, *, guard: WriteGuard | None = None
    ) -> FsWriteOutcome:
        """Create or replace the file atomically, honouring ``guard``.

        Raises FsError ``FS_NOT_OBSERVED`` (``CreateIfAbsent`` on an existing file),
        ``FS_STALE_VERSION`` (``ReplaceIfVersion`` on a missing or changed file),
        ``FS_NOT_REGULAR_FILE``, ``FS_OUTSIDE_WORKSPACE``, ``FS_PROTECTED_PATH``,
        ``FS_TOO_LARGE``, ``FS_PERMISSION_DENIED``, ``FS_IO_ERROR``.
        """
        ...

    async def edit_text(
        self,
        target: FsTarget,
        edits: Sequence[LiteralEdit],
        *,
        expected: ExpectVersion | None = None,
    ) -> FsEditOutcome:
        """Apply ``edits`` in order as one atomic change.

        Raises FsError ``FS_STALE_VERSION`` (missing file with ``expected`` given, or a version
        mismatch), ``FS_NOT_FOUND``, ``FS_NOT_REGULAR_FILE``, ``FS_NOT_TEXT``,
        ``FS_EDIT_NOT_FOUND``, ``FS_AMBIGUOUS_EDIT``, ``FS_OUTSIDE_WORKSPACE``,
        ``FS_PROTECTED_PATH``, ``FS_TOO_LARGE``, ``FS_PERMISSION_DENIED``, ``FS_IO_ERROR``.
        """
        ...


FS: ServiceKey[FileSystem] = ServiceKey("fs")
"""The filesystem service; exactly one provider (local or editor-backed) is loaded."""
