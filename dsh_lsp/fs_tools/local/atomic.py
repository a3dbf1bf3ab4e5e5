"""Atomic file replacement for the local provider (fs_tools layer).

The new content goes to a private temporary file in the target's own directory (so the final
rename never crosses filesystems), is flushed to disk, gets the old file's permission bits,
and is renamed over the target; the directory is synced afterwards. Readers see the old file
or the new one, never a mix. Replacing breaks hard links (the name points to a new inode) and
gives the file the writing user as owner: that is the price of atomicity.

Confinement under a race: the directory is opened once and, when the caller names the real
directory it checked (``expect_dir``), the opened directory must be that one; the temporary
file is created and renamed relative to that descriptor (``dir_fd``), so a symlink swapped
into the path after the check cannot carry the file anywhere else.
"""

from __future__ import annotations

import contextlib
import os
import uuid

from .disk import os_errors, require_identity


def atomic_write(
    path: str, data: bytes, *, mode: int | None, display_path: str, expect_dir: bool = False
) -> os.stat_result:
    """Replace (or create) ``path`` with ``data``; returns the stat of the written file.

    ``mode`` holds the permission bits to keep (None for a new file: the umask applies).
    Missing parent directories are created. With ``expect_dir``, ``path`` is a checked real
    path and its directory, once opened, must still be that directory (see the module
    docstring). Raises FsError (``os_errors`` translation; ``FS_IO_ERROR`` for a directory
    that changed identity); on failure the temporary file is removed and the target is
    untouched.
    """
    directory, base = os.path.split(path)
    with os_errors(display_path):
        os.makedirs(directory, exist_ok=True)
        dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            if expect_dir:
                require_identity(dir_fd, directory, display_path)
            written = _replace_in(dir_fd, base, data, mode)
            with contextlib.suppress(OSError):
                os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    return written


def _replace_in(dir_fd: int, base: str, data: bytes, mode: int | None) -> os.stat_result:
    temp = f".{base}.{os.getpid()}.{uuid.uuid4().hex}.tmp"
    create_mode = 0o600 if mode is not None else 0o666
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW
    fd = os.open(temp, flags, create_mode, dir_fd=dir_fd)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
            written = os.fstat(fd)
        finally:
            os.close(fd)
        os.replace(temp, base, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dir_fd)
        raise
    return written
