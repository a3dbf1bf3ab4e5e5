"""The literal edit algorithm every provider runs on ``\\n``-normalized text (fs_tools layer).

Pure. Edits apply in order, each to the result of the previous one; the first failing edit
aborts the whole batch, so a caller writes either every change or nothing. Matching is exact
text (no regex, no whitespace folding); occurrences are counted without overlap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .errors import FsError
from .guards import LiteralEdit
from .text import normalize_eol


@dataclass(frozen=True, slots=True, kw_only=True)
class EditApplication:
    """The text after every edit, and how many occurrences each edit replaced."""

    text: str
    replacements: tuple[int, ...]


def apply_literal_edits(
    text: str, edits: Sequence[LiteralEdit], *, display_path: str
) -> EditApplication:
    """Apply ``edits`` to ``text`` (already ``\\n``-normalized) in order.

    Raises FsError ``FS_EDIT_NOT_FOUND`` (no edits, an empty ``old_string``, or one that does not
    occur) and ``FS_AMBIGUOUS_EDIT`` (several occurrences without ``replace_all``). With several
    edits the message names the failing one as ``edits[i]``.
    """
    if not edits:
        raise FsError("FS_EDIT_NOT_FOUND", f"no edits were given for {display_path}")
    counts: list[int] = []
    for index, edit in enumerate(edits):
        where = f"edits[{index}]: " if len(edits) > 1 else ""
        old = normalize_eol(edit.old_string)
        if not old:
            raise FsError("FS_EDIT_NOT_FOUND", f"{where}old_string is empty")
        count = text.count(old)
        if count == 0:
            hint = " (earlier edits in this call already changed the text)" if index else ""
            raise FsError(
                "FS_EDIT_NOT_FOUND",
                f"{where}old_string was not found in {display_path}{hint}. Read the file "
                "again and copy the exact text, including whitespace and indentation.",
            )
        if count > 1 and not edit.replace_all:
            raise FsError(
                "FS_AMBIGUOUS_EDIT",
                f"{where}old_string matched {count} times in {display_path}; include more "
                "surrounding lines to make it unique, or set replace_all to true.",
            )
        text = text.replace(old, normalize_eol(edit.new_string))
        counts.append(count)
    return EditApplication(text=text, replacements=tuple(counts))
