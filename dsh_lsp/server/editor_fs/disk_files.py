"""Disk files as the editor will load them: the closed-file half of the editor provider (server).

Blocking functions (run in worker threads) built on the local provider's disk primitives, so
sizes, versions, error codes and messages match it exactly. ``load`` takes the stat from the
same open descriptor as the bytes, so the version and the content always belong together.
``editor_text`` is the text an editor shows for those bytes: strict UTF-8 without the
byte-order mark (editors hide it and write it back on save), line endings as stored.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from dsh_lsp.fs_tools.local.disk import (
    os_errors,
    read_regular,
    require_regular,
    stat_or_none,
    type_of,
    version_of,
)
from dsh_lsp.fs_tools.text import decode_utf8, not_text, strip_bom


@dataclass(frozen=True, slots=True, kw_only=True)
class DiskFile:
    """What is on disk at a path: nothing (``version`` None) or a regular file's bytes."""

    version: str | None
    data: bytes | None = None


def load(real: str, shown: str, *, max_bytes: int) -> DiskFile:
    """The file at ``real`` (symlinks already resolved).

    Raises FsError ``FS_NOT_REGULAR_FILE``, ``FS_NOT_DIRECTORY`` (a missing file below a
    path that is not a directory), ``FS_TOO_LARGE``, ``FS_PERMISSION_DENIED``, ``FS_IO_ERROR``.
    """
    current = stat_or_none(real, shown)
    if current is None:
        _check_parents(real, shown)
        return DiskFile(version=None)
    require_regular(current, shown)
    loaded = read_regular(real, shown, max_bytes=max_bytes, verb="editing")
    return DiskFile(version=version_of(loaded.stat), data=loaded.data)


def disk_version(real: str, shown: str) -> str | None:
    """The version of what is at ``real`` now, None when nothing is."""
    current = stat_or_none(real, shown)
    return None if current is None else version_of(current)


def editor_text(data: bytes, shown: str) -> str:
    """The text an editor shows for ``data``.

    Raises FsError ``FS_NOT_TEXT`` for a NUL byte anywhere or invalid UTF-8.
    """
    if b"\0" in data:
        raise not_text(shown, "contains NUL bytes")
    return strip_bom(decode_utf8(data, shown))[1]


def _check_parents(real: str, shown: str) -> None:
    """Raise ``FS_NOT_DIRECTORY`` when the nearest existing ancestor is not a directory."""
    parent = os.path.dirname(real)
    with os_errors(shown):
        while parent and parent != os.path.dirname(parent):
            try:
                mode = os.stat(parent).st_mode
            except (FileNotFoundError, NotADirectoryError):
                parent = os.path.dirname(parent)
                continue
            if type_of(mode) != "directory":
                raise NotADirectoryError(parent)
            return
