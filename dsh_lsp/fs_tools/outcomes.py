"""What successful writes and edits report back (fs_tools layer).

``before`` and ``after`` are the file's text as the model sees it — ``\\n`` line endings and no
byte-order mark — so diffs are identical whichever provider made the change. ``version`` is the
token of the content just written, which policies record so a follow-up edit needs no re-read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True, kw_only=True)
class FsWriteOutcome:
    """A finished ``write_text``."""

    operation: Literal["create", "update"]
    version: str
    before: str | None
    """The previous text; None when the file was created or its content was not text."""
    after: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FsEditOutcome:
    """A finished ``edit_text``."""

    version: str
    before: str
    after: str
    replacements: tuple[int, ...]
    """How many occurrences each ``LiteralEdit`` replaced, in order."""
