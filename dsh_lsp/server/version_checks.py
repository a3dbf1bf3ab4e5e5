"""Version checks of the editor provider: guards and expected versions on tokens (server layer).

The same rules and messages as the local provider, over version tokens of any origin (buffer,
overlay or disk), which are only ever compared for equality. Checked inside the target's
critical section, before any matching or editing.
"""

from __future__ import annotations

from typing import assert_never

from dsh_lsp.fs_tools import CreateIfAbsent, ExpectVersion, FsError, ReplaceIfVersion, WriteGuard


def check_guard(guard: WriteGuard | None, current: str | None, shown: str) -> None:
    """Raise unless a write under ``guard`` may replace the state ``current`` (None: nothing
    exists). Raises FsError ``FS_NOT_OBSERVED`` or ``FS_STALE_VERSION``."""
    match guard:
        case None:
            return
        case CreateIfAbsent():
            if current is not None:
                raise FsError(
                    "FS_NOT_OBSERVED",
                    f"{shown} already exists; read it before overwriting it, or edit it instead",
                )
        case ReplaceIfVersion(version=version):
            if current is None:
                raise vanished(shown)
            if current != version:
                raise FsError(
                    "FS_STALE_VERSION",
                    f"{shown} changed since you last read it; read it again before overwriting",
                )
        case _:
            assert_never(guard)


def check_expected(expected: ExpectVersion | None, current: str, shown: str) -> None:
    """Raise FsError ``FS_STALE_VERSION`` when an edit expects another version."""
    if expected is not None and expected.version != current:
        raise FsError(
            "FS_STALE_VERSION",
            f"{shown} changed since you last read it; read it again, then redo the edit",
        )


def vanished(shown: str) -> FsError:
    """The ``FS_STALE_VERSION`` error for a file that no longer exists."""
    return FsError(
        "FS_STALE_VERSION",
        f"{shown} no longer exists (it was deleted or moved since you read it)",
    )
