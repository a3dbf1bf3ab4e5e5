"""Blocking disk operations of the local provider, run in worker threads (fs_tools layer).

Every function here is synchronous and translates ``OSError`` into ``FsError`` exactly once
(``os_errors``). Versions are ``"<mtime_ns>:<size>:<inode>"``: an atomic replace always
changes the inode, and an in-place change almost always changes mtime or size.

Hostile files: a read opens the path once (``O_NONBLOCK``, so a FIFO or a device never blocks
the open), checks the *opened* descriptor (``fstat``: regular files only) and reads at most
``max_bytes + 1`` bytes, so a file that grows, or lies about its size (``/proc``), costs no
more than the limit. ``opened_path`` names the file a descriptor really is (``/proc/self/fd``
on Linux, ``F_GETPATH`` on macOS): ``read_regular(expect=…)`` refuses a file that is not the
checked real path, which closes the window between resolving a path and opening it (a
symlink swapped in between).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from dsh_lsp.fs_tools.errors import FsError
from dsh_lsp.fs_tools.target import FileType, FsInfo


def version_of(st: os.stat_result) -> str:
    """The opaque version token of a stat result."""
    return f"{st.st_mtime_ns}:{st.st_size}:{st.st_ino}"


def type_of(mode: int) -> FileType:
    """``file``, ``directory`` or ``other`` for a stat mode."""
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "directory"
    return "other"


def info_of(st: os.stat_result) -> FsInfo:
    """The ``FsInfo`` of a stat result."""
    return FsInfo(
        type=type_of(st.st_mode),
        version=version_of(st),
        size=st.st_size,
        modified_ns=st.st_mtime_ns,
    )


@contextmanager
def os_errors(display_path: str) -> Iterator[None]:
    """Translate ``OSError`` raised in the body into ``FsError`` about ``display_path``."""
    try:
        yield
    except FsError:
        raise
    except FileNotFoundError as exc:
        raise FsError("FS_NOT_FOUND", f"{display_path} does not exist", cause=exc) from None
    except (NotADirectoryError, FileExistsError) as exc:
        raise FsError(
            "FS_NOT_DIRECTORY", f"a parent of {display_path} is not a directory", cause=exc
        ) from None
    except IsADirectoryError as exc:
        raise FsError(
            "FS_NOT_REGULAR_FILE", f"{display_path} is a directory, not a file", cause=exc
        ) from None
    except PermissionError as exc:
        raise FsError(
            "FS_PERMISSION_DENIED", f"permission denied for {display_path}", cause=exc
        ) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise FsError(
                "FS_INVALID_PATH", f"{display_path} is a symlink loop", cause=exc
            ) from None
        reason = exc.strerror or type(exc).__name__
        raise FsError("FS_IO_ERROR", f"cannot access {display_path}: {reason}", cause=exc) from None


def stat_or_none(path: str, display_path: str) -> os.stat_result | None:
    """``os.stat`` (following symlinks), None when nothing exists there.

    Raises FsError ``FS_PERMISSION_DENIED`` / ``FS_IO_ERROR``.
    """
    with os_errors(display_path):
        try:
            return os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            return None


@dataclass(frozen=True, slots=True, kw_only=True)
class FileBytes:
    """A regular file's content and the stat taken from the same open descriptor."""

    data: bytes
    stat: os.stat_result


def read_regular(
    path: str, display_path: str, *, max_bytes: int, verb: str, expect: str | None = None
) -> FileBytes:
    """Read a whole regular file; the stat is taken from the open descriptor before reading,
    and at most ``max_bytes + 1`` bytes are read. With ``expect`` (a real path), the opened
    file must be that path (see the module docstring).

    Raises FsError ``FS_NOT_FOUND``, ``FS_NOT_REGULAR_FILE``, ``FS_TOO_LARGE`` (``verb`` says
    what was attempted), ``FS_PERMISSION_DENIED``, ``FS_IO_ERROR`` (also for a file that
    changed identity while it was opened).
    """
    with os_errors(display_path):
        fd = open_regular(path, display_path, expect=expect)
        try:
            st = os.fstat(fd)
            if st.st_size > max_bytes:
                raise too_large(display_path, st.st_size, max_bytes, verb)
            data = read_at_most(fd, max_bytes + 1)
            if len(data) > max_bytes:
                raise too_large(display_path, len(data), max_bytes, verb)
        finally:
            os.close(fd)
    return FileBytes(data=data, stat=st)


def open_regular(path: str, display_path: str, *, expect: str | None = None) -> int:
    """Open ``path`` for reading without blocking on a FIFO or a device; the descriptor of a
    regular file (``expect``: that must be the file at this real path). The caller closes it.

    Raises OSError, FsError ``FS_NOT_REGULAR_FILE`` / ``FS_IO_ERROR``.
    """
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        require_regular(os.fstat(fd), display_path)
        if expect is not None:
            require_identity(fd, expect, display_path)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_at_most(fd: int, limit: int) -> bytes:
    """Up to ``limit`` bytes from ``fd`` (fewer at end of file)."""
    parts: list[bytes] = []
    left = limit
    while left > 0:
        piece = os.read(fd, min(left, 1 << 20))
        if not piece:
            break
        parts.append(piece)
        left -= len(piece)
    return b"".join(parts)


def opened_path(fd: int) -> str | None:
    """The real path of the file behind ``fd``, or None where the platform cannot say."""
    if sys.platform == "darwin":
        get_path = getattr(fcntl, "F_GETPATH", None)
        if get_path is not None:
            with contextlib.suppress(OSError):
                raw = fcntl.fcntl(fd, get_path, bytes(1024))
                return os.fsdecode(raw.split(b"\0", 1)[0])
        return None
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def require_identity(fd: int, expect: str, display_path: str) -> None:
    """Raise FsError ``FS_IO_ERROR`` unless ``fd`` is the file at real path ``expect``."""
    actual = opened_path(fd)
    if actual is None:  # no way to ask: compare the inode at ``expect`` now
        same = stat_or_none(expect, display_path)
        opened = os.fstat(fd)
        if same is not None and (same.st_dev, same.st_ino) == (opened.st_dev, opened.st_ino):
            return
    elif actual == expect:
        return
    raise FsError(
        "FS_IO_ERROR",
        f"{display_path} changed while it was being opened (a link along it was replaced); "
        "nothing was read",
    )


def require_regular(st: os.stat_result, display_path: str) -> None:
    """Raise FsError ``FS_NOT_REGULAR_FILE`` unless ``st`` is a regular file."""
    if not stat.S_ISREG(st.st_mode):
        what = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise FsError("FS_NOT_REGULAR_FILE", f"{display_path} is {what}")


def too_large(display_path: str, size: int, limit: int, verb: str) -> FsError:
    """The ``FS_TOO_LARGE`` error: what failed, the size and the limit, in MiB."""
    return FsError(
        "FS_TOO_LARGE",
        f"{display_path} is {_mib(size)}; {verb} is limited to {_mib(limit)}",
    )


def _mib(size: int) -> str:
    return f"{size / 1048576:.1f} MiB" if size >= 104858 else f"{size} bytes"
