"""FileSearch: the bulk discovery seam behind ``list``, ``glob`` and ``grep`` (fs_tools layer).

Walking a tree and scanning thousands of files is not a sequence of ``FileSystem`` calls: one
round trip per file cannot meet a search budget. ``FileSearch`` is a separate service, so a
provider swap (an editor-backed ``FS``) keeps search working. Every walk honours
``.gitignore`` files, skips ``.git``/``.hg``/``.svn`` and never follows symlinks. Paths in
reports are absolute display paths (the searched directory's display path joined with the
relative path below it); ``rel`` fields are ``/``-separated and relative to the searched path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from dsh_lsp.kernel import ServiceKey

EntryKind = Literal["file", "directory", "symlink", "other"]
"""What a walked entry is (symlinks are reported, never followed)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TreeQuery:
    """List the tree under ``path`` down to ``depth`` levels (1: direct children only)."""

    path: str
    depth: int
    max_entries: int
    cwd: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TreeEntry:
    """One listed entry; ``depth`` 1 is a direct child of the listed directory."""

    rel: str
    kind: EntryKind
    depth: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TreeReport:
    """The listed entries in walk order (directories before their contents, names sorted)."""

    root: str
    entries: tuple[TreeEntry, ...]
    truncated: bool
    """True when ``max_entries`` cut the listing short."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GlobQuery:
    """Files under ``path`` whose relative path matches the glob ``pattern``."""

    pattern: str
    path: str
    max_results: int
    cwd: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class GlobReport:
    """Matching files, most recently modified first (ties by path), at most ``max_results``."""

    root: str
    paths: tuple[str, ...]
    total: int
    """How many files matched before truncation."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GrepQuery:
    """Lines matching the regular expression ``pattern`` (Python ``re`` syntax).

    ``path`` is a directory (searched recursively) or one file. ``glob`` filters files: a
    pattern without ``/`` matches file names at any depth, one with ``/`` matches the path
    relative to ``path``. ``context`` lines are shown around each match.
    """

    pattern: str
    path: str
    max_matches: int
    glob: str | None = None
    context: int = 0
    ignore_case: bool = False
    cwd: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class GrepLine:
    """One output line: its 1-based number, text (no line ending) and whether it matched."""

    number: int
    text: str
    matched: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class GrepFile:
    """The matching (and context) lines of one file, in line order."""

    path: str
    lines: tuple[GrepLine, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class GrepReport:
    """Files with matches in walk order; ``truncated`` when ``max_matches`` stopped the search."""

    root: str
    files: tuple[GrepFile, ...]
    matches: int
    files_searched: int
    truncated: bool


class FileSearch(Protocol):
    """Tree listing, glob and grep over a workspace; every method raises only ``FsError``."""

    async def tree(self, query: TreeQuery) -> TreeReport:
        """Raises FsError ``FS_NOT_FOUND``, ``FS_NOT_DIRECTORY``, ``FS_INVALID_PATH``."""
        ...

    async def glob(self, query: GlobQuery) -> GlobReport:
        """Raises FsError ``FS_INVALID_PATTERN``, ``FS_NOT_FOUND``, ``FS_NOT_DIRECTORY``,
        ``FS_INVALID_PATH``."""
        ...

    async def grep(self, query: GrepQuery) -> GrepReport:
        """Binary files (a NUL in the first 8192 bytes) are skipped; other files are decoded
        as UTF-8 with invalid bytes replaced. Raises FsError ``FS_INVALID_PATTERN``,
        ``FS_NOT_FOUND``, ``FS_INVALID_PATH``."""
        ...


FS_SEARCH: ServiceKey[FileSearch] = ServiceKey("fs-search")
"""The search service (``LocalSearchPlugin`` provides the disk-backed one)."""
