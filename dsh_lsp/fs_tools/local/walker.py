"""A ``.gitignore``-aware directory walk for the local search service (fs_tools layer).

Synchronous (run it in a worker thread). Depth-first, entries of each directory sorted by
name, a directory reported before its contents. Never follows symlinks (they are reported as
``symlink`` and not entered), always skips version-control directories, and does not enter a
directory that a ``.gitignore`` rule ignores. The ``.gitignore`` files of the enclosing git
repository between its top and the walked directory apply too, as does ``.git/info/exclude``.
Unreadable directories are skipped silently.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from dsh_lsp.fs_tools.gitignore import IgnoreStack, parse_gitignore
from dsh_lsp.fs_tools.search import EntryKind

SKIPPED_DIRS: Final = frozenset({".git", ".hg", ".svn"})
"""Directory names a walk never lists nor enters."""


@dataclass(frozen=True, slots=True)
class WalkItem:
    """One walked entry: its real path, path relative to the walk root, kind and depth."""

    path: str
    rel: str
    kind: EntryKind
    depth: int


def walk(root: str, *, max_depth: int | None = None) -> Iterator[WalkItem]:
    """Walk below the real directory ``root`` (not included); see the module docstring."""
    stack: list[tuple[Iterator[tuple[str, str, EntryKind]], str, int, IgnoreStack | None]] = []
    ignores = _with_gitignore(_ancestor_ignores(root), root)
    stack.append((_entries(root), "", 1, ignores))
    while stack:
        entries, prefix, depth, ignores = stack[-1]
        item = next(entries, None)
        if item is None:
            stack.pop()
            continue
        name, path, kind = item
        is_dir = kind == "directory"
        if is_dir and name in SKIPPED_DIRS:
            continue
        if ignores is not None and ignores.is_ignored(path, is_dir=is_dir):
            continue
        rel = prefix + name
        yield WalkItem(path, rel, kind, depth)
        if is_dir and (max_depth is None or depth < max_depth):
            stack.append((_entries(path), rel + "/", depth + 1, _with_gitignore(ignores, path)))


def _entries(directory: str) -> Iterator[tuple[str, str, EntryKind]]:
    try:
        with os.scandir(directory) as scan:
            found = sorted((entry.name, entry.path, _kind(entry)) for entry in scan)
    except OSError:
        return iter(())
    return iter(found)


def _kind(entry: os.DirEntry[str]) -> EntryKind:
    try:
        if entry.is_symlink():
            return "symlink"
        if entry.is_dir(follow_symlinks=False):
            return "directory"
        if entry.is_file(follow_symlinks=False):
            return "file"
    except OSError:
        pass
    return "other"


def _with_gitignore(parent: IgnoreStack | None, directory: str) -> IgnoreStack | None:
    text = _read_text(os.path.join(directory, ".gitignore"))
    if text is None:
        return parent
    rules = parse_gitignore(text)
    if not rules.rules:
        return parent
    return IgnoreStack(base=directory.rstrip("/") + "/", rules=rules, parent=parent)


def _ancestor_ignores(root: str) -> IgnoreStack | None:
    """The rules of the repository enclosing ``root``, from its top down to ``root``'s parent."""
    chain: list[str] = []
    current = root
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            break
        parent = os.path.dirname(current)
        if parent == current:
            return None  # not inside a git repository: only rules at and below root apply
        chain.append(parent)
        current = parent
    top = current
    stack: IgnoreStack | None = None
    exclude = _read_text(os.path.join(top, ".git", "info", "exclude"))
    if exclude is not None:
        stack = IgnoreStack(base=top.rstrip("/") + "/", rules=parse_gitignore(exclude))
    for directory in reversed(chain):
        stack = _with_gitignore(stack, directory)
    return stack


def _read_text(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(1 << 20).decode("utf-8", errors="replace")
    except OSError:
        return None
