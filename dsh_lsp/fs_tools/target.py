"""Targets and file facts: what the filesystem seam resolves paths to (fs_tools layer).

``FsTarget`` is a resolved path: an opaque identity ``key`` (the same file reached through any
spelling or symlink gives the same key), the absolute ``display_path`` the model and the UI
see, and whether the file lies inside a workspace root. ``FsInfo`` is what ``stat`` knows
without reading content; ``FsDirEntry`` is one row of a directory listing. Providers own the
meaning of ``key`` and ``version``; everyone else only compares them for equality.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FileType = Literal["file", "directory", "other"]
"""What a path is: a regular file, a directory, or anything else (device, socket, …)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FsTarget:
    """A path resolved by a provider; immutable and safe to use as a dict key."""

    key: str
    """Opaque, stable identity: equal for every spelling and symlink of the same file."""
    display_path: str
    """The absolute path as written by the caller (normalized), for messages and UIs."""
    in_workspace: bool
    """True when the file, after resolving symlinks, lies under a workspace root."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FsInfo:
    """What ``stat`` knows about an existing path; never content."""

    type: FileType
    version: str
    """Opaque version token: it changes whenever the content may have changed."""
    size: int | None = None
    """Size in bytes when known."""
    modified_ns: int | None = None
    """Last modification time (ns since the epoch) when known; used to order search results."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FsDirEntry:
    """One entry of a directory listing (one level, no content read)."""

    name: str
    type: FileType
    """The entry's type, following symlinks (a dangling symlink is ``other``)."""
    target: FsTarget
    size: int | None = None
    modified_ns: int | None = None
