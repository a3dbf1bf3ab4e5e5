"""LocalFileSystem: the ``FileSystem`` seam over the local disk (fs_tools layer).

Resolution and confinement come from ``WorkspacePaths``, text rules from ``fs_tools.text``,
the edit algorithm from ``fs_tools.literal_edit``; this module sequences them. Path
resolution, ``stat`` and whole reads of small regular files (``INLINE_READ_BYTES``) run on the
event loop: they are a few metadata calls and one ``read`` on a local disk, far cheaper than
the hand-off to a worker thread and back (~0.1 ms each; three per ``read`` tool call on the
path between two model requests). Everything else (large reads, streaming, listings, writes
and edits) runs in worker threads (``anyio.to_thread``), which finish even when the caller is
cancelled, so a write is all-or-nothing. Writes and edits of one target serialize on a per-key lock;
the guard or expected version is checked inside it, before any byte changes.

Write-back policy (the model never sees a byte-order mark or a CR): an edit restores the
file's BOM and its dominant line ending (the whole file is converted to it); a write that
replaces a BOM file keeps the BOM, and one that replaces a CRLF file with text holding no CR
gets CRLF line endings. New files are written exactly as given.
"""

from __future__ import annotations

import codecs
import io
import os
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from stat import S_ISREG
from typing import Final

import anyio

from dsh_lsp.fs_tools.errors import FsError
from dsh_lsp.fs_tools.guards import (
    ExpectVersion,
    LiteralEdit,
    WriteGuard,
)
from dsh_lsp.fs_tools.literal_edit import apply_literal_edits
from dsh_lsp.fs_tools.outcomes import FsEditOutcome, FsWriteOutcome
from dsh_lsp.fs_tools.target import FsDirEntry, FsInfo, FsTarget
from dsh_lsp.fs_tools.text import (
    BOM,
    SNIFF_BYTES,
    Document,
    decode_utf8,
    detect_eol,
    looks_binary,
    normalize_eol,
    not_text,
    strip_bom,
)
from dsh_lsp.fs_tools.version_checks import check_expected, check_guard, vanished

from .atomic import atomic_write
from .disk import (
    FileBytes,
    info_of,
    open_regular,
    os_errors,
    read_regular,
    require_regular,
    stat_or_none,
    too_large,
    type_of,
    version_of,
)
from .locks import KeyedLocks
from .paths import WorkspacePaths

STREAM_CHUNK: Final = 1 << 20
"""Bytes read per step by ``stream_text``."""

INLINE_READ_BYTES: Final = 256 << 10
"""Regular files up to this size are read whole on the event loop (see the module docstring);
larger ones in a worker thread."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LocalLimits:
    """Size limits in bytes: whole-file reads, and files written or edited."""

    max_read_bytes: int = 32 << 20
    max_write_bytes: int = 32 << 20


class LocalFileSystem:
    """The local-disk provider of ``FS``; see the module docstring. Owns no open resources."""

    __slots__ = ("_limits", "_locks", "_paths")

    def __init__(self, paths: WorkspacePaths, limits: LocalLimits | None = None) -> None:
        self._paths = paths
        self._limits = limits or LocalLimits()
        self._locks = KeyedLocks()

    @property
    def paths(self) -> WorkspacePaths:
        """The workspace roots and default cwd this provider confines writes to."""
        return self._paths

    async def resolve(self, path: str, *, cwd: str | None = None) -> FsTarget:
        """See ``FileSystem.resolve`` (on the event loop)."""
        return self._paths.resolve(path, cwd)

    async def stat(self, target: FsTarget) -> FsInfo | None:
        """See ``FileSystem.stat`` (on the event loop)."""
        st = stat_or_none(target.key, target.display_path)
        return None if st is None else info_of(st)

    async def read_text(self, target: FsTarget) -> str:
        """See ``FileSystem.read_text`` (a small regular file on the event loop)."""
        verb = "reading a whole file"
        loaded = self._read_small(target, verb)
        if loaded is None:
            loaded = await anyio.to_thread.run_sync(self._read, target, verb)
        if looks_binary(loaded.data):
            raise not_text(target.display_path, "looks binary (it contains NUL bytes)")
        return strip_bom(decode_utf8(loaded.data, target.display_path))[1]

    async def stream_text(self, target: FsTarget) -> AsyncGenerator[str, None]:
        """See ``FileSystem.stream_text``."""
        handle = await anyio.to_thread.run_sync(_open_regular, target)
        try:
            decoder = codecs.getincrementaldecoder("utf-8")("strict")
            offset = 0
            first = True
            while True:
                chunk = await anyio.to_thread.run_sync(_read_chunk, handle, target.display_path)
                final = not chunk
                if offset < SNIFF_BYTES and looks_binary(chunk[: SNIFF_BYTES - offset]):
                    raise not_text(target.display_path, "looks binary (it contains NUL bytes)")
                try:
                    text = decoder.decode(chunk, final=final)
                except UnicodeDecodeError as exc:
                    where = f"byte {offset + exc.start}"
                    raise not_text(target.display_path, f"is not valid UTF-8 ({where})") from None
                offset += len(chunk)
                if first and text:
                    text = strip_bom(text)[1]
                    first = False
                if text:
                    yield text
                if final:
                    return
        finally:
            handle.close()

    async def list_dir(self, target: FsTarget) -> tuple[FsDirEntry, ...]:
        """See ``FileSystem.list_dir``."""
        return await anyio.to_thread.run_sync(self._list, target)

    async def write_text(
        self, target: FsTarget, content: str, *, guard: WriteGuard | None = None
    ) -> FsWriteOutcome:
        """See ``FileSystem.write_text``."""
        async with self._locks.hold(target.key):
            return await anyio.to_thread.run_sync(self._write, target, content, guard)

    async def edit_text(
        self,
        target: FsTarget,
        edits: Sequence[LiteralEdit],
        *,
        expected: ExpectVersion | None = None,
    ) -> FsEditOutcome:
        """See ``FileSystem.edit_text``."""
        edits = tuple(edits)
        async with self._locks.hold(target.key):
            return await anyio.to_thread.run_sync(self._edit, target, edits, expected)

    def _read_small(self, target: FsTarget, verb: str) -> FileBytes | None:
        """``_read`` of a regular file of at most ``INLINE_READ_BYTES``; None for anything
        else (also when the stat fails), which the worker-thread read then handles and
        reports. Raises what ``_read`` raises."""
        try:
            st = stat_or_none(target.key, target.display_path)
        except FsError:
            return None
        if st is None or not S_ISREG(st.st_mode) or st.st_size > INLINE_READ_BYTES:
            return None
        return self._read(target, verb)

    # -- blocking halves (worker threads) ----------------------------------------------------

    def _read(self, target: FsTarget, verb: str) -> FileBytes:
        return read_regular(
            target.key,
            target.display_path,
            max_bytes=self._limits.max_read_bytes,
            verb=verb,
            expect=target.key,
        )

    def _list(self, target: FsTarget) -> tuple[FsDirEntry, ...]:
        shown = target.display_path
        with os_errors(shown):
            st = os.stat(target.key)
            if type_of(st.st_mode) != "directory":
                raise FsError("FS_NOT_DIRECTORY", f"{shown} is not a directory")
            with os.scandir(target.key) as scan:
                names = sorted(entry.name for entry in scan)
        entries: list[FsDirEntry] = []
        for name in names:
            child = self._paths.target(os.path.join(shown, name))
            child_stat = stat_or_none(child.key, child.display_path)
            if child_stat is None:
                entries.append(FsDirEntry(name=name, type="other", target=child))
                continue
            info = info_of(child_stat)
            entries.append(
                FsDirEntry(
                    name=name,
                    type=info.type,
                    target=child,
                    size=info.size,
                    modified_ns=info.modified_ns,
                )
            )
        return tuple(entries)

    def _write(self, target: FsTarget, content: str, guard: WriteGuard | None) -> FsWriteOutcome:
        real = self._paths.check_writable(target)
        shown = target.display_path
        current = stat_or_none(real, shown)
        check_guard(guard, None if current is None else version_of(current), shown)
        before: str | None = None
        mode: int | None = None
        data_text = content
        if current is not None:
            require_regular(current, shown)
            mode = current.st_mode & 0o7777
            if current.st_size <= self._limits.max_read_bytes:
                old = read_regular(
                    real, shown, max_bytes=self._limits.max_read_bytes, verb="reading", expect=real
                )
                before, data_text = _keep_style(old.data, content)
        data = data_text.encode("utf-8", errors="strict")
        if len(data) > self._limits.max_write_bytes:
            raise too_large(shown, len(data), self._limits.max_write_bytes, "writing")
        written = atomic_write(real, data, mode=mode, display_path=shown, expect_dir=True)
        return FsWriteOutcome(
            operation="create" if current is None else "update",
            version=version_of(written),
            before=before,
            after=normalize_eol(strip_bom(content)[1]),
        )

    def _edit(
        self, target: FsTarget, edits: tuple[LiteralEdit, ...], expected: ExpectVersion | None
    ) -> FsEditOutcome:
        real = self._paths.check_writable(target)
        shown = target.display_path
        current = stat_or_none(real, shown)
        if current is None:
            if expected is not None:
                raise vanished(shown)
            raise FsError("FS_NOT_FOUND", f"{shown} does not exist")
        require_regular(current, shown)
        loaded = read_regular(
            real, shown, max_bytes=self._limits.max_write_bytes, verb="editing", expect=real
        )
        check_expected(expected, version_of(loaded.stat), shown)
        document = Document.decode(loaded.data, shown)
        applied = apply_literal_edits(document.text, edits, display_path=shown)
        updated = document.with_text(applied.text).encode()
        if updated == loaded.data:
            version = version_of(loaded.stat)
        else:
            mode = loaded.stat.st_mode & 0o7777
            written = atomic_write(real, updated, mode=mode, display_path=shown, expect_dir=True)
            version = version_of(written)
        return FsEditOutcome(
            version=version,
            before=document.text,
            after=applied.text,
            replacements=applied.replacements,
        )


def _keep_style(old: bytes, content: str) -> tuple[str | None, str]:
    """(the old text as the model sees it or None, the content with the old BOM/CRLF kept)."""
    if b"\0" in old:
        return None, content
    try:
        old_text = old.decode("utf-8")
    except UnicodeDecodeError:
        return None, content
    had_bom, body = strip_bom(old_text)
    if had_bom and not content.startswith(BOM):
        content = BOM + content
    if detect_eol(body) == "\r\n" and "\r" not in content:
        content = content.replace("\n", "\r\n")
    return normalize_eol(body), content


def _open_regular(target: FsTarget) -> io.FileIO:
    """An unbuffered reader of the regular file at ``target.key`` itself (the caller closes
    it)."""
    with os_errors(target.display_path):
        fd = open_regular(target.key, target.display_path, expect=target.key)
    return io.FileIO(fd, "rb", closefd=True)


def _read_chunk(handle: io.FileIO, display_path: str) -> bytes:
    with os_errors(display_path):
        return handle.read(STREAM_CHUNK) or b""
