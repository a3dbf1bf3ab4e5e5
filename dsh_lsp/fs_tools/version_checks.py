"""Version checks shared by every FileSystem provider: write guards, expected versions (fs_tools).

Providers call these inside the target's critical section, before any matching or editing,
with the current version token (of any origin: disk, editor buffer, overlay), which is only
ever compared for equality. One home keeps the rules and the model-facing messages identical
across the local and the editor-backed provider.
"""

from __future__ import annotations

from typing import assert_never

from .errors import FsError
from .guards import CreateIfAbsent, ExpectVersion, ReplaceIfVersion, WriteGuard


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
