"""LocalFileSearch: the disk-backed ``FileSearch`` (fs_tools layer).

Paths resolve through the ``FS`` service (so display paths and cwd handling match the file
tools whichever provider runs); the walk and the scans read the disk. Walks run in worker
threads in slices, and grep scans batches of files on a few threads at once, so a cancelled
search stops within one batch. Results are deterministic: walk order (sorted names) for tree
and grep, modification time then path for glob.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Final, TypeVar

import anyio

from dsh_lsp.fs_tools.errors import FsError
from dsh_lsp.fs_tools.filesystem import FileSystem
from dsh_lsp.fs_tools.globpattern import compile_glob
from dsh_lsp.fs_tools.regex_literal import required_literal
from dsh_lsp.fs_tools.search import (
    GlobQuery,
    GlobReport,
    GrepFile,
    GrepLine,
    GrepQuery,
    GrepReport,
    TreeEntry,
    TreeQuery,
    TreeReport,
)

from .disk import os_errors, require_regular
from .grep_engine import FileScan, ScanSpec, scan_batch
from .walker import WalkItem, walk

T = TypeVar("T")

WALK_SLICE: Final = 4096
"""Entries walked per worker-thread hop."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchLimits:
    """Grep's per-file size limit, scan batch size, parallel scans and line clipping."""

    max_file_bytes: int = 8 << 20
    batch_files: int = 256
    workers: int = 2
    max_line_chars: int = 300


class LocalFileSearch:
    """``FileSearch`` over the local disk; paths resolve through ``fs``. Owns nothing."""

    __slots__ = ("_fs", "_limiter", "_limits")

    def __init__(self, fs: FileSystem, limits: SearchLimits | None = None) -> None:
        self._fs = fs
        self._limits = limits or SearchLimits()
        self._limiter = anyio.CapacityLimiter(max(1, self._limits.workers))

    async def tree(self, query: TreeQuery) -> TreeReport:
        """See ``FileSearch.tree``."""
        shown, real = await self._directory(query.path, query.cwd)
        items = await _collect(walk(real, max_depth=max(1, query.depth)), query.max_entries + 1)
        entries = tuple(TreeEntry(rel=i.rel, kind=i.kind, depth=i.depth) for i in items)
        return TreeReport(
            root=shown,
            entries=entries[: query.max_entries],
            truncated=len(entries) > query.max_entries,
        )

    async def glob(self, query: GlobQuery) -> GlobReport:
        """See ``FileSearch.glob``."""
        pattern = query.pattern.removeprefix("./")
        if pattern.startswith("/"):
            raise FsError(
                "FS_INVALID_PATTERN",
                f"glob {query.pattern!r} is absolute; put the directory in path and give a "
                "pattern relative to it",
            )
        regex = _compile(compile_glob, pattern, "glob")
        shown, real = await self._directory(query.path, query.cwd)
        depth = None if "**" in pattern else pattern.count("/") + 1
        items = await _collect(
            (i for i in walk(real, max_depth=depth) if i.kind == "file" and regex.match(i.rel)),
            None,
        )
        stamped = await anyio.to_thread.run_sync(_stamp, items)
        stamped.sort(key=lambda pair: (-pair[0], pair[1]))
        paths = tuple(_join(shown, rel) for _, rel in stamped[: query.max_results])
        return GlobReport(root=shown, paths=paths, total=len(stamped))

    async def grep(self, query: GrepQuery) -> GrepReport:
        """See ``FileSearch.grep``."""
        flags = re.MULTILINE | (re.IGNORECASE if query.ignore_case else 0)
        regex = _compile(lambda p: re.compile(p, flags), query.pattern, "regular expression")
        accept = _file_filter(query.glob)
        target = await self._fs.resolve(query.path, cwd=query.cwd)
        real, st = await anyio.to_thread.run_sync(_locate, target.display_path)
        if stat.S_ISDIR(st.st_mode):
            root = target.display_path
            items = await _collect(
                (i for i in walk(real) if i.kind == "file" and accept(i.rel)), None
            )
            files = [(index, item.path) for index, item in enumerate(items)]
            rels = [item.rel for item in items]
        else:
            require_regular(st, target.display_path)
            root = os.path.dirname(target.display_path)
            files = [(0, real)]
            rels = [os.path.basename(target.display_path)]
        spec = ScanSpec(
            regex=regex,
            context=max(0, query.context),
            max_line_chars=self._limits.max_line_chars,
            max_file_bytes=self._limits.max_file_bytes,
            max_matches=query.max_matches + 1,
            literal=None if query.ignore_case else _literal_bytes(query.pattern),
        )
        scans = await self._scan(files, spec, query.max_matches)
        return _report(root, rels, scans, query.max_matches, len(files), spec.context)

    async def _directory(self, path: str, cwd: str | None) -> tuple[str, str]:
        target = await self._fs.resolve(path, cwd=cwd)
        real, st = await anyio.to_thread.run_sync(_locate, target.display_path)
        if not stat.S_ISDIR(st.st_mode):
            raise FsError("FS_NOT_DIRECTORY", f"{target.display_path} is not a directory")
        return target.display_path, real

    async def _scan(
        self, files: list[tuple[int, str]], spec: ScanSpec, budget: int
    ) -> list[FileScan]:
        size = max(1, self._limits.batch_files)
        batches = [files[start : start + size] for start in range(0, len(files), size)]
        done: dict[int, list[FileScan]] = {}
        state = {"next": 0, "prefix": 0, "matches": 0}

        async def worker(scope: anyio.CancelScope) -> None:
            while state["next"] < len(batches):
                index = state["next"]
                state["next"] += 1
                done[index] = await anyio.to_thread.run_sync(
                    scan_batch, batches[index], spec, limiter=self._limiter
                )
                while state["prefix"] in done:
                    state["matches"] += sum(scan.matches for scan in done[state["prefix"]])
                    state["prefix"] += 1
                if state["matches"] > budget:
                    scope.cancel()

        async with anyio.create_task_group() as group:
            for _ in range(max(1, self._limits.workers)):
                group.start_soon(worker, group.cancel_scope)
        return [scan for index in range(state["prefix"]) for scan in done[index]]


def _report(
    root: str, rels: list[str], scans: list[FileScan], budget: int, searched: int, context: int
) -> GrepReport:
    files: list[GrepFile] = []
    matches = 0
    truncated = False
    for scan in scans:
        lines = scan.lines
        if matches + scan.matches > budget:
            lines = _cut(lines, budget - matches, context)
            truncated = True
        matches += sum(1 for line in lines if line.matched)
        if lines:
            files.append(GrepFile(path=_join(root, rels[scan.index]), lines=lines))
        if truncated:
            break
    return GrepReport(
        root=root, files=tuple(files), matches=matches, files_searched=searched, truncated=truncated
    )


def _cut(lines: tuple[GrepLine, ...], keep: int, context: int) -> tuple[GrepLine, ...]:
    """The lines through the ``keep``-th match and its trailing context."""
    if keep <= 0:
        return ()
    hits = [index for index, line in enumerate(lines) if line.matched]
    last = hits[keep - 1]
    end = last + 1
    while (
        end < len(lines)
        and not lines[end].matched
        and lines[end].number <= lines[last].number + context
    ):
        end += 1
    return lines[:end]


def _compile(build: Callable[[str], re.Pattern[str]], pattern: str, what: str) -> re.Pattern[str]:
    try:
        return build(pattern)
    except (re.error, ValueError) as exc:
        raise FsError("FS_INVALID_PATTERN", f"invalid {what} {pattern!r}: {exc}") from None


def _file_filter(glob: str | None) -> Callable[[str], bool]:
    if not glob:
        return lambda rel: True
    regex = _compile(compile_glob, glob.removeprefix("./"), "glob")
    if "/" in glob.removeprefix("./"):
        return lambda rel: regex.match(rel) is not None
    return lambda rel: regex.match(rel.rpartition("/")[2]) is not None


async def _collect(items: Iterator[T], limit: int | None) -> list[T]:
    """Drain ``items`` (a blocking iterator) in worker-thread slices, up to ``limit``."""
    collected: list[T] = []
    while limit is None or len(collected) < limit:
        want = WALK_SLICE if limit is None else min(WALK_SLICE, limit - len(collected))
        chunk = await anyio.to_thread.run_sync(_take, items, want)
        collected.extend(chunk)
        if len(chunk) < want:
            break
    return collected


def _literal_bytes(pattern: str) -> bytes | None:
    literal = required_literal(pattern)
    return None if literal is None else literal.encode("utf-8", errors="surrogatepass")


def _take(items: Iterator[T], count: int) -> list[T]:
    return list(islice(items, count))


def _locate(display_path: str) -> tuple[str, os.stat_result]:
    """The real path behind a display path and its stat. Raises FsError (``os_errors``)."""
    real = os.path.realpath(display_path)
    with os_errors(display_path):
        return real, os.stat(real)


def _stamp(items: list[WalkItem]) -> list[tuple[int, str]]:
    stamped: list[tuple[int, str]] = []
    for item in items:
        try:
            stamped.append((os.stat(item.path, follow_symlinks=False).st_mtime_ns, item.rel))
        except OSError:
            continue
    return stamped


def _join(root: str, rel: str) -> str:
    return os.path.join(root, *rel.split("/"))
