"""What the file tools share: their dependencies, call facts and argument helpers (fs_tools).

``ToolDeps`` bundles the services a tool body uses (captured when ``FsToolsPlugin`` applies;
the plugin unloads when one disappears). The helpers read the session's cwd and owner from a
``ToolExecution``, shorten paths for bulk listings, check integer bounds the schema DSL cannot
express (raising ``ToolArgsError`` with the registry's message shape), and convert diff hunks
to and from tool-result ``meta``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dsh_lsp.kernel import Context
from dsh_lsp.llm import JsonObject, JsonValue
from dsh_lsp.tools import FileDiff, ToolArgsError, ToolExecution

from .diff import DiffHunk, hunk_from_json, hunk_to_json
from .filesystem import FileSystem
from .search import FileSearch
from .tools_config import FsToolsConfig

if TYPE_CHECKING:
    from .read_gate import CheckedTargets


def _checked_targets() -> CheckedTargets:
    from .read_gate import CheckedTargets  # the gate imports this module

    return CheckedTargets()


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolDeps:
    """The context that dispatches ``fs/*`` events, the services, and the limits."""

    ctx: Context
    fs: FileSystem
    search: FileSearch
    config: FsToolsConfig
    checked: CheckedTargets = field(default_factory=_checked_targets)
    """What the read gate resolved, for the tool to read (``read_gate``)."""


def call_cwd(execution: ToolExecution) -> str | None:
    """The calling session's cwd (relative paths start there), or None for the default."""
    session = execution.session
    return None if session is None else session.header.cwd


def call_owner(execution: ToolExecution) -> object | None:
    """The owner policies key their memory by: the calling session, if any."""
    return execution.session


def shown(path: str, cwd: str | None) -> str:
    """``path`` relative to ``cwd`` when it lies below it (bulk listings), else unchanged."""
    if cwd and (path == cwd or path.startswith(cwd.rstrip("/") + "/")):
        return os.path.relpath(path, cwd)
    return path


def int_arg(
    args: JsonObject, name: str, default: int, *, minimum: int, maximum: int | None = None
) -> int:
    """The integer argument ``name`` (``default`` when absent or null) within bounds.

    Raises ToolArgsError (``"name" must be …``) when out of bounds.
    """
    value = args.get(name)
    if value is None:
        return default
    assert isinstance(value, int | float)  # the schema declared "integer"
    number = int(value)
    if number < minimum or (maximum is not None and number > maximum):
        bound = f"at least {minimum}" if maximum is None else f"between {minimum} and {maximum}"
        raise ToolArgsError([f'"{name}" must be {bound}'])
    return number


def str_arg(args: JsonObject, name: str) -> str | None:
    """The string argument ``name``; None when absent or null."""
    value = args.get(name)
    return value if isinstance(value, str) else None


def require_text(args: JsonObject, name: str) -> str:
    """The required string argument ``name`` (the schema guarantees presence and type)."""
    value = args.get(name)
    assert isinstance(value, str)
    return value


def bool_arg(args: JsonObject, name: str) -> bool:
    """The boolean argument ``name``; False when absent or null."""
    return args.get(name) is True


def hunks_meta(path: str, hunks: Sequence[DiffHunk]) -> dict[str, JsonValue]:
    """``meta`` entries describing a change of ``path``: the path and its diff hunks."""
    return {"path": path, "hunks": [hunk_to_json(hunk) for hunk in hunks]}


def diffs_from_meta(meta: JsonObject | None) -> tuple[FileDiff, ...]:
    """One ``FileDiff`` per hunk recorded by ``hunks_meta`` (none for foreign meta)."""
    if meta is None:
        return ()
    path = meta.get("path")
    hunks = meta.get("hunks")
    if not isinstance(path, str) or not isinstance(hunks, Sequence):
        return ()
    diffs: list[FileDiff] = []
    for value in hunks:
        hunk = hunk_from_json(value)
        if hunk is not None:
            diffs.append(FileDiff(path=path, old_text=hunk.old_text, new_text=hunk.new_text))
    return tuple(diffs)


def first_changed_line(meta: JsonObject | None) -> int | None:
    """The line of the first change recorded by ``hunks_meta``, if any."""
    hunks = None if meta is None else meta.get("hunks")
    if not isinstance(hunks, Sequence) or isinstance(hunks, str) or not hunks:
        return None
    hunk = hunk_from_json(hunks[0])
    return None if hunk is None else hunk.first_changed_line


def meta_str(meta: Mapping[str, JsonValue] | None, key: str) -> str | None:
    """A string entry of ``meta``, if present."""
    value = None if meta is None else meta.get(key)
    return value if isinstance(value, str) else None


def meta_int(meta: Mapping[str, JsonValue] | None, key: str) -> int | None:
    """An integer entry of ``meta``, if present."""
    value = None if meta is None else meta.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None
