"""What successful writes and edits report back (fs_tools layer).

``before`` and ``after`` are the file's text as the model sees it — ``\\n`` line endings and no
byte-order mark — so diffs are identical whichever provider made the change. ``version`` is the
token of the content just written, which policies record so a follow-up edit needs no re-read.

An edit is diffed once: a provider that had to diff ``before`` against ``after`` to make the
change (the editor-backed one sends the minimal replacements to the editor) hands that
``TextDiff`` back in ``diff``, and ``text_diff()`` returns it; otherwise ``text_diff()`` diffs
(the local provider writes whole files and never needs one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .diff import NO_CHANGE, TextDiff, diff_texts


@dataclass(frozen=True, slots=True, kw_only=True)
class FsWriteOutcome:
    """A finished ``write_text``."""

    operation: Literal["create", "update"]
    version: str
    before: str | None
    """The previous text; None when the file was created or its content was not text."""
    after: str
    diff: TextDiff | None = None
    """``before`` → ``after`` (``""`` for a created file) when the provider diffed them."""

    def text_diff(self) -> TextDiff:
        """The change as a diff (the provider's, else diffed now); empty when ``before`` is
        None for an update (the old content was not text). Never raises."""
        if self.diff is not None:
            return self.diff
        if self.before is None and self.operation == "update":
            return NO_CHANGE
        return diff_texts(self.before or "", self.after)


@dataclass(frozen=True, slots=True, kw_only=True)
class FsEditOutcome:
    """A finished ``edit_text``."""

    version: str
    before: str
    after: str
    replacements: tuple[int, ...]
    """How many occurrences each ``LiteralEdit`` replaced, in order."""
    diff: TextDiff | None = None
    """``before`` → ``after`` when the provider diffed them to make the change."""

    def text_diff(self) -> TextDiff:
        """The change as a diff: the provider's, else diffed now. Never raises."""
        return self.diff if self.diff is not None else diff_texts(self.before, self.after)
