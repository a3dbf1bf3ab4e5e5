"""Text edits: buffer hunks as LSP ``TextEdit`` objects in the client's units (server layer).

A hunk may start or end between the ``\\r`` and ``\\n`` of a line break (a write that turns
CRLF into LF, say), where LSP has no position; such a hunk is widened by that one character
on the side concerned, and its new text carries it, so the result is the same. Positions are
computed in one pass over the buffer for all hunks (``positions_at``).
"""

from __future__ import annotations

from collections.abc import Sequence

from dsh_lsp.llm import JsonValue
from dsh_lsp.server.buffers.positions import PositionEncoding, positions_at, splits_crlf

from .hunks import TextHunk


def widen_crlf(text: str, hunk: TextHunk) -> TextHunk:
    """``hunk`` of ``text`` moved out of any ``\\r\\n`` pair it would split."""
    start, end, new_text = hunk.start, hunk.end, hunk.new_text
    if splits_crlf(text, start):
        start -= 1
        new_text = "\r" + new_text
    if splits_crlf(text, end):
        end += 1
        new_text += "\n"
    if (start, end, new_text) == (hunk.start, hunk.end, hunk.new_text):
        return hunk
    return TextHunk(start=start, end=end, new_text=new_text)


def text_edits(
    text: str,
    hunks: Sequence[TextHunk],
    encoding: PositionEncoding,
    *,
    annotation: str | None = None,
) -> list[JsonValue]:
    """LSP ``TextEdit`` objects (``AnnotatedTextEdit`` with ``annotation``) for ordered,
    non-overlapping ``hunks`` of ``text``."""
    widened = [widen_crlf(text, hunk) for hunk in hunks]
    offsets = [offset for hunk in widened for offset in (hunk.start, hunk.end)]
    positions = positions_at(text, offsets, encoding)
    edits: list[JsonValue] = []
    for index, hunk in enumerate(widened):
        edit: dict[str, JsonValue] = {
            "range": {
                "start": positions[2 * index].to_json(),
                "end": positions[2 * index + 1].to_json(),
            },
            "newText": hunk.new_text,
        }
        if annotation is not None:
            edit["annotationId"] = annotation
        edits.append(edit)
    return edits
