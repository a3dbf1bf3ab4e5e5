"""Diagnostics for the version the agent just wrote (server layer).

The rule: an edit's result reports the problems of exactly the document version that shows
the edit, never an older one's. Around each edit of an open document (the ``editor/edit``
seam) the problems the editor knows *before* the edit are taken (one ``dsh/editor/diagnostics``
without ``version``, answered at once), and the version token of the state that shows the
edit is recorded on the running tool call (``CallRecord``, a context variable the
``tools/pre-execute`` listener opens). Once the tool returns, each recorded edit's version
*v* is asked for (``version: v, timeoutMs``); the result gains the errors and warnings in the
lines the edit changed that were not there before (same severity, message, code and source
in the changed lines of the old text), or ``No new problems.``, or — when no answer for *v*
came in time, or the answer describes another version — the sentence that the language
servers had not reported on this version. An edit whose didChange is still late (a
provisional token) has no known version and gets that sentence too.

Commands: before a ``bash`` command runs the open documents are noted (text, size and
modification time of their file) with the problems the editor knows; afterwards each open
file the command changed on disk is waited for until the editor shows the new text (the
editor reloads it), and reported the same way.
"""

from __future__ import annotations

import logging
import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar
from dataclasses import KW_ONLY, dataclass, field
from typing import Final

import anyio

from dsh_lsp.fs_tools import TextHunk, diff_texts, shown_path
from dsh_lsp.server.buffers import OpenDocuments, line_texts, positions_at

from .answers import DocumentProblems, EditorAnswerError, EditorNoAnswerError, Problem
from .client import EditorIntel
from .lines import uri_path
from .tools import problem_row

_log = logging.getLogger(__name__)

GRACE_SECONDS: Final = 0.25
"""How much longer than ``timeoutMs`` the server waits for the client's answer."""
BEFORE_SECONDS: Final = 0.5
"""How long the problems before an edit may take (the client answers at once)."""
MAX_NEW: Final = 20
"""New problems one edit's result lists."""
MAX_COMMAND_FILES: Final = 5
"""Open files a command changed that are checked."""


@dataclass(frozen=True, slots=True, kw_only=True)
class WrittenEdit:
    """One edit the running call made: the texts around it, the token of the state that
    showed it, and the problems known before it (None: unknown)."""

    uri: str
    before: str
    after: str
    token: str
    earlier: DocumentProblems | None
    hunks: tuple[TextHunk, ...] | None = None
    """The edit's replacements of ``before`` (None: diff the texts)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenFile:
    """An open document before a command ran: its text and its file's size and mtime."""

    uri: str
    path: str
    text: str
    stamp: tuple[int, int] | None


@dataclass(slots=True)
class CallRecord:
    """What one tool call wrote through the editor (mutable; one per running call)."""

    edits: list[WrittenEdit] = field(default_factory=list)
    open_files: tuple[OpenFile, ...] | None = None
    earlier: tuple[DocumentProblems, ...] = ()


CURRENT_CALL: ContextVar[CallRecord | None] = ContextVar("dsh_editor_call", default=None)
"""The running tool call's record (set by the ``tools/pre-execute`` listener)."""


def _lines_at(text: str, offsets: Sequence[int]) -> list[int]:
    """The zero-based lines of ascending ``offsets`` into ``text`` (one pass of counts)."""
    return [spot.line for spot in positions_at(text, offsets, "utf-32")]


def changed_lines(
    before: str, after: str, hunks: Sequence[TextHunk] | None = None
) -> tuple[frozenset[int], frozenset[int]]:
    """The zero-based lines an edit changed: in the old text, and in the new text.
    ``hunks`` are the edit's replacements of ``before`` (diffed here when not given)."""
    if hunks is None:
        hunks = diff_texts(before, after).text_hunks
    old_offsets: list[int] = []
    new_offsets: list[int] = []
    shift = 0
    for hunk in hunks:
        old_offsets += [hunk.start, max(hunk.end - 1, hunk.start)]
        start = hunk.start + shift
        new_offsets += [start, max(start + len(hunk.new_text) - 1, start)]
        shift += len(hunk.new_text) - (hunk.end - hunk.start)
    old_lines, new_lines = _lines_at(before, old_offsets), _lines_at(after, new_offsets)
    old: set[int] = set()
    new: set[int] = set()
    for index in range(0, len(old_lines), 2):
        old.update(range(old_lines[index], old_lines[index + 1] + 1))
        new.update(range(new_lines[index], new_lines[index + 1] + 1))
    return frozenset(old), frozenset(new)


def new_problems(
    earlier: DocumentProblems | None,
    now: DocumentProblems,
    old_lines: Iterable[int],
    new_lines: Iterable[int],
) -> tuple[Problem, ...]:
    """The errors and warnings of ``now`` in ``new_lines`` that ``earlier`` did not have in
    ``old_lines`` (counted: a second copy of a problem is new)."""
    old_set, new_set = set(old_lines), set(new_lines)
    seen: Counter[tuple[int, str, str | None, str | None]] = Counter(
        p.key for p in (earlier.problems if earlier else ()) if p.start.line in old_set
    )
    found: list[Problem] = []
    for problem in sorted(now.problems, key=lambda p: (p.start.line, p.start.character)):
        if problem.severity > 2 or problem.start.line not in new_set:
            continue
        if seen[problem.key] > 0:
            seen[problem.key] -= 1
            continue
        found.append(problem)
    return tuple(found)


@dataclass(frozen=True, slots=True, eq=False)
class AfterEdit:
    """The post-edit diagnostics of one connection; owns nothing."""

    intel: EditorIntel
    documents: OpenDocuments
    _: KW_ONLY
    enabled: Callable[[], bool]
    """Whether edits get diagnostics (the setting, read at each call)."""
    timeout_ms: Callable[[], int]
    """How long the editor may take for an edit's version (read at each call)."""

    @property
    def active(self) -> bool:
        """Whether edits get diagnostics now (the setting is read at each call)."""
        return "diagnostics" in self.intel.methods and self.enabled()

    async def before(self, uri: str | None) -> tuple[DocumentProblems, ...]:
        """The problems the editor knows now (of ``uri``, or of every document); empty
        when it cannot tell in time. Never raises."""
        try:
            return await self.intel.diagnostics(uri, seconds=BEFORE_SECONDS)
        except (EditorNoAnswerError, EditorAnswerError):
            return ()
        except Exception:  # the edit goes ahead whatever the connection does
            _log.exception("the problems before an edit could not be asked for")
            return ()

    async def report(self, edit: WrittenEdit, cwd: str | None, *, label: str = "") -> str:
        """The text an edit's result gains (see the module docstring). Raises only what
        the channel raises unexpectedly (no answer and bad answers become sentences)."""
        shown = shown_path(uri_path(edit.uri), cwd)
        version = self.documents.version_of(edit.uri, edit.token)
        timeout_ms = self.timeout_ms()
        waited = f"waited {timeout_ms / 1000:g} s"
        if version is None:
            return (
                f"{label}The editor's language servers had not reported on this version of "
                f"{shown} (the editor has not confirmed it yet); use `diagnostics` later."
            )
        try:
            answers = await self.intel.diagnostics(
                edit.uri,
                version=version,
                timeout_ms=timeout_ms,
                seconds=timeout_ms / 1000 + GRACE_SECONDS,
            )
        except EditorNoAnswerError:
            answers = ()
        except EditorAnswerError as exc:
            return f"{label}No diagnostics for {shown}: {exc}."
        now = next(
            (a for a in answers if a.uri == edit.uri and a.version == version),
            None,
        )
        if now is None:
            return (
                f"{label}The editor's language servers had not reported on this version of "
                f"{shown} yet ({waited}); use `diagnostics` later to see its problems."
            )
        old_lines, new_lines = changed_lines(edit.before, edit.after, edit.hunks)
        found = new_problems(edit.earlier, now, old_lines, new_lines)
        partial = (
            "" if now.complete else " (Not every language server had reported on this version yet.)"
        )
        if not found:
            return f"{label}No new problems.{partial}"
        lines = line_texts(edit.after)
        rows = [
            problem_row(
                problem,
                shown,
                lines[problem.start.line] if problem.start.line < len(lines) else None,
                self.documents.encoding,
            )
            for problem in found[:MAX_NEW]
        ]
        if len(found) > MAX_NEW:
            rows.append(f"({len(found) - MAX_NEW} more not shown.)")
        head = f"{label}New problems in the lines you changed (version {version}):{partial}"
        return "\n".join((head, *rows))

    def open_files(self) -> tuple[OpenFile, ...]:
        """The open documents backed by files, with their files' stamps. Never raises."""
        files: list[OpenFile] = []
        for document in self.documents.all():
            if document.key is None:
                continue
            files.append(
                OpenFile(
                    uri=document.uri,
                    path=document.key,
                    text=document.text(),
                    stamp=_stamp(document.key),
                )
            )
        return tuple(files)

    async def after_command(
        self, files: Sequence[OpenFile], earlier: Sequence[DocumentProblems], cwd: str | None
    ) -> tuple[str, ...]:
        """The reports for the open files a command changed on disk. Never raises."""
        changed = [f for f in files if _stamp(f.path) != f.stamp][:MAX_COMMAND_FILES]
        if not changed:
            return ()
        reports: dict[str, str] = {}
        deadline = self.timeout_ms() / 1000

        async def check(file: OpenFile) -> None:
            shown = shown_path(uri_path(file.uri), cwd)
            label = f"Diagnostics of {shown}, which the command changed: "
            token = await self._reloaded(file, deadline)
            if token is None:
                reports[file.uri] = (
                    f"{label}the editor has not shown the new text yet, so its language "
                    "servers could not report on it; use `diagnostics` later."
                )
                return
            document = self.documents.get(file.uri)
            after = file.text if document is None else document.text()
            previous = next((p for p in earlier if p.uri == file.uri), None)
            edit = WrittenEdit(
                uri=file.uri, before=file.text, after=after, token=token, earlier=previous
            )
            reports[file.uri] = await self.report(edit, cwd, label=label)

        async with anyio.create_task_group() as group:
            for file in changed:
                group.start_soon(check, file)
        return tuple(reports[f.uri] for f in changed if f.uri in reports)

    async def _reloaded(self, file: OpenFile, seconds: float) -> str | None:
        """The token of the state where the editor shows the file's new disk text, or None
        when it does not within ``seconds``."""
        disk = await anyio.to_thread.run_sync(_read, file.path)
        document = self.documents.get(file.uri)
        if disk is None or document is None:
            return None
        with self.documents.watch(file.uri, disk) as watch:
            if document.text() == disk:
                return document.token
            with anyio.move_on_after(seconds):
                await watch.seen.wait()
        return None if watch.closed else watch.shown_at


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size)


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", newline="") as file:
            return file.read()
    except (OSError, UnicodeDecodeError):
        return None
