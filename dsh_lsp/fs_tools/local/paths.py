"""Workspace paths: resolution, identity and write confinement for the local provider (fs_tools).

A path resolves in three steps: join it to the cwd (``~`` expanded), normalize it lexically
(the ``display_path``), then resolve every symlink (the ``key``, also for files that do not
exist yet: the nearest existing ancestor is resolved and the rest appended). Confinement looks
only at the key, so ``../``, absolute paths, a symlinked directory or a symlinked file cannot
lead a write outside the workspace roots, and ``.git`` internals stay untouchable. POSIX paths.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from dsh_lsp.fs_tools.errors import FsError
from dsh_lsp.fs_tools.target import FsTarget

PROTECTED_DIR = ".git"
"""A path component that makes every path below it read-only."""


class WorkspacePaths:
    """The workspace roots (resolved once) and the default directory for relative paths.

    Raises FsError ``FS_INVALID_PATH`` when constructed with no roots or a root that is not
    an existing directory.
    """

    __slots__ = ("_default_cwd", "_roots")

    def __init__(self, roots: Sequence[str], *, default_cwd: str | None = None) -> None:
        if not roots:
            raise FsError("FS_INVALID_PATH", "at least one workspace root is required")
        resolved: list[str] = []
        for root in roots:
            _check_chars(root)
            real = os.path.realpath(os.path.abspath(os.path.expanduser(root)))
            if not os.path.isdir(real):
                raise FsError("FS_INVALID_PATH", f"workspace root {root!r} is not a directory")
            resolved.append(real)
        self._roots = tuple(resolved)
        self._default_cwd = os.path.abspath(default_cwd) if default_cwd else self._roots[0]

    @property
    def roots(self) -> tuple[str, ...]:
        """The workspace roots, symlinks resolved."""
        return self._roots

    @property
    def default_cwd(self) -> str:
        """Where relative paths start when the caller gives no cwd (the first root)."""
        return self._default_cwd

    def resolve(self, path: str, cwd: str | None = None) -> FsTarget:
        """Resolve ``path`` against ``cwd`` (default: ``default_cwd``); see the module doc.

        Raises FsError ``FS_INVALID_PATH`` for an empty path or a NUL in path or cwd.
        """
        if not path:
            raise FsError("FS_INVALID_PATH", "the path is empty; give a file or directory path")
        _check_chars(path)
        base = cwd or self._default_cwd
        _check_chars(base)
        return self.target(os.path.join(os.path.abspath(base), os.path.expanduser(path)))

    def target(self, path: str) -> FsTarget:
        """The target of an absolute path taken literally (no ``~`` expansion)."""
        display = os.path.normpath(path)
        key = os.path.realpath(display)
        return FsTarget(key=key, display_path=display, in_workspace=self.contains(key))

    def contains(self, real_path: str) -> bool:
        """Whether a symlink-free absolute path lies under (or is) a workspace root."""
        return any(_within(real_path, root) for root in self._roots)

    def check_writable(self, target: FsTarget) -> str:
        """The real path a write to ``target`` may touch, re-resolved now.

        Raises FsError ``FS_OUTSIDE_WORKSPACE`` when it resolves outside every root (symlinks
        included), ``FS_PROTECTED_PATH`` when it lies inside a ``.git`` directory.
        """
        real = os.path.realpath(target.key)
        if not self.contains(real):
            shown = target.display_path
            via = "" if real == shown else f" (it resolves to {real})"
            raise FsError(
                "FS_OUTSIDE_WORKSPACE",
                f"{shown} is outside the workspace{via}; only files under "
                f"{', '.join(self._roots)} can be written or edited",
            )
        if PROTECTED_DIR in real.split(os.sep):
            raise FsError(
                "FS_PROTECTED_PATH",
                f"{target.display_path} is inside a {PROTECTED_DIR} directory, which is never "
                "written by file tools; use git commands instead",
            )
        return real


def _within(path: str, root: str) -> bool:
    if path == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return path.startswith(prefix)


def _check_chars(path: str) -> None:
    if "\0" in path:
        raise FsError("FS_INVALID_PATH", f"the path {path!r} contains a NUL character")
