"""Atomic file replacement for the local provider (fs_tools layer).

The new content goes to a private temporary file in the target's own directory (so the final
rename never crosses filesystems), is flushed to disk, gets the old file's permission bits,
and is renamed over the target; the directory is synced afterwards. Readers see the old file
or the new one, never a mix. Replacing breaks hard links (the name points to a new inode) and
gives the file the writing user as owner: that is the price of atomicity.
"""

from __future__ import annotations

import contextlib
import os
import uuid

from .disk import os_errors


def atomic_write(path: str, data: bytes, *, mode: int | None, display_path: str) -> os.stat_result:
    """Replace (or create) ``path`` with ``data``; returns the stat of the written file.

    ``mode`` holds the permission bits to keep (None for a new file: the umask applies).
    Missing parent directories are created. Raises FsError (``os_errors`` translation); on
    failure the temporary file is removed and the target is untouched.
    """
    directory, base = os.path.split(path)
    with os_errors(display_path):
        os.makedirs(directory, exist_ok=True)
        temp = os.path.join(directory, f".{base}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
        create_mode = 0o600 if mode is not None else 0o666
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, create_mode)
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
            os.replace(temp, path)
        except BaseException:
            _remove_quietly(temp)
            raise
        _sync_directory(directory)
    return written


def _remove_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _sync_directory(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
