"""Render intents: how a tool call and its result look in an editor UI (tools layer).

A tool may declare pure presenters that turn its (valid) arguments into a ``ToolCallView``
and its finished result into a ``ToolResultView``. They name the kind of work, a short title,
the file locations an editor can follow and the diffs it can show. Presenters depend only on
their inputs, so a UI can call them live or while replaying a session log. When a tool has no
presenter, its arguments are invalid or its presenter raises, the generic views below apply.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "fetch", "other"]
"""What a call does, so a UI can pick an icon and a follow-along policy."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolLocation:
    """A file (and optionally a 1-based line) a call touches."""

    path: str
    line: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class FileDiff:
    """A whole-file change: ``old_text`` is None when the call creates the file."""

    path: str
    old_text: str | None
    new_text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallView:
    """How a pending call is shown."""

    title: str
    kind: ToolKind = "other"
    locations: tuple[ToolLocation, ...] = ()
    diffs: tuple[FileDiff, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultView:
    """How a finished call is shown; ``summary`` replaces the raw result text when set."""

    title: str
    kind: ToolKind = "other"
    locations: tuple[ToolLocation, ...] = ()
    diffs: tuple[FileDiff, ...] = ()
    summary: str | None = None


def generic_call_view(name: str) -> ToolCallView:
    """The fallback view of a call: the tool's name as the title, kind ``other``."""
    return ToolCallView(title=name)


def generic_result_view(call: ToolCallView) -> ToolResultView:
    """The fallback view of a result: the call's title, kind and locations, no summary."""
    return ToolResultView(title=call.title, kind=call.kind, locations=call.locations)
