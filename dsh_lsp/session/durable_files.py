"""Crash-safe file primitives for the JSONL backend (session layer; blocking calls).

``publish`` creates a file that appears complete or not at all: the bytes go to a private
temp file that is fsynced, then hard-linked to the final name (``link`` fails when the name
exists, unlike ``rename``, so a session is never overwritten), and the directory is fsynced.
Where the file system supports it (Linux ``O_TMPFILE``) the temp file has no name at all, so
a crash in the middle leaves nothing behind; elsewhere it is a hidden ``.<name>.<hex>.tmp``
removed on the way out, which only a crash between its creation and its removal can leave.
``append`` writes and fsyncs; if anything fails it truncates the file back to its size before
the call, so a retry cannot duplicate bytes. OS errors propagate as ``OSError``.
"""

from __future__ import annotations

import errno
import os
import secrets
from pathlib import Path

_DIR_MODE = 0o700
_FILE_MODE = 0o600


def fsync_dir(path: Path) -> None:
    """Make the directory entries of ``path`` durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def ensure_dir(path: Path) -> None:
    """Create ``path`` and missing parents (mode 0700), fsyncing each new entry's parent."""
    if path.is_dir():
        return
    ensure_dir(path.parent)
    try:
        path.mkdir(mode=_DIR_MODE)
    except FileExistsError:
        return
    fsync_dir(path.parent)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (``os.write`` may write less per call)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def publish(path: Path, data: bytes) -> None:
    """Create ``path`` holding ``data``, atomically and durably.

    Raises ``FileExistsError`` when ``path`` exists (nothing changes then).
    """
    ensure_dir(path.parent)
    if _publish_unnamed(path, data):
        fsync_dir(path.parent)
        return
    temp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, _FILE_MODE)
    try:
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.link(temp, path)
    finally:
        temp.unlink(missing_ok=True)
    fsync_dir(path.parent)


def _publish_unnamed(path: Path, data: bytes) -> bool:
    """Publish through an unnamed ``O_TMPFILE``; False when the system offers none."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag:
        return False
    try:
        fd = os.open(path.parent, flag | os.O_WRONLY | os.O_CLOEXEC, _FILE_MODE)
    except OSError as exc:
        if exc.errno in (errno.EISDIR, errno.EOPNOTSUPP, errno.EINVAL, errno.ENOENT):
            return False  # the kernel or the file system has no O_TMPFILE
        raise
    try:
        write_all(fd, data)
        os.fsync(fd)
        # A dir fd makes CPython call linkat(AT_SYMLINK_FOLLOW): the name goes to the file
        # the /proc link points at (plain link(2) would try to link the /proc entry itself).
        parent = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.link(f"/proc/self/fd/{fd}", path.name, dst_dir_fd=parent, follow_symlinks=True)
        finally:
            os.close(parent)
    except FileNotFoundError:
        if not os.path.isdir("/proc/self/fd"):
            return False  # no /proc to name the file through
        raise
    finally:
        os.close(fd)
    return True


def append(path: Path, data: bytes) -> None:
    """Append ``data`` to ``path`` and fsync; on failure restore the previous size and raise."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
    try:
        size = os.fstat(fd).st_size
        try:
            write_all(fd, data)
            os.fsync(fd)
        except BaseException:
            os.ftruncate(fd, size)
            os.fsync(fd)
            raise
    finally:
        os.close(fd)


def truncate(path: Path, size: int) -> None:
    """Cut ``path`` to ``size`` bytes, durably."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    finally:
        os.close(fd)


def read_first_line(path: Path, limit: int = 1 << 20) -> bytes:
    """The first line of ``path`` with its newline (at most ``limit`` bytes)."""
    with path.open("rb") as file:
        return file.readline(limit)
