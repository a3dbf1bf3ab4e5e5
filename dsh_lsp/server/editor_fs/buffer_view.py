"""BufferView: the model's view of an editor buffer, and the way back (server layer).

The file tools edit text as the model sees it: no byte-order mark, ``\\n`` line endings
(``fs_tools.text``). An editor buffer may hold CRLF line breaks (all of them, or a mix) and,
rarely, a leading U+FEFF. ``BufferView`` keeps both texts and maps offsets of the model's
text back to the buffer, so hunks computed on the model's text become hunks of the buffer
that touch nothing else: a mixed-EOL file keeps every untouched line ending, and inserted
text uses the buffer's dominant line ending.

The diff itself is ``dsh_lsp.fs_tools.diff_texts``, run once per change on the model's text
(``change_to``): its unified hunks are what the tool result shows, its minimal replacements,
mapped here, are what the editor receives.

Mapping is O(1) for LF-only buffers, one ``str.count`` per offset for all-CRLF buffers,
and a binary search over the CRLF positions (found once) for mixed ones.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, assert_never

from dsh_lsp.fs_tools import (
    EditApplication,
    FsEditOutcome,
    LiteralEdit,
    TextDiff,
    TextHunk,
    apply_hunks,
    apply_literal_edits,
    diff_texts,
)
from dsh_lsp.fs_tools.provider_kit import BOM, Eol, detect_eol, normalize_eol, strip_bom

BreakStyle = Literal["lf", "crlf", "mixed"]
"""``lf``: no CRLF; ``crlf``: every ``\\n`` is part of a CRLF; ``mixed``: both kinds."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BufferEdit:
    """Literal edits planned on a buffer (``BufferView.edited``): the model's text before and
    after, the diff between them, and its replacements as hunks of the buffer."""

    before: str
    applied: EditApplication
    diff: TextDiff
    hunks: tuple[TextHunk, ...]

    def outcome(self, version: str) -> FsEditOutcome:
        """The finished ``edit_text`` once the editor holds ``version``."""
        return FsEditOutcome(
            version=version,
            before=self.before,
            after=self.applied.text,
            replacements=self.applied.replacements,
            diff=self.diff,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class BufferView:
    """A buffer's text (``raw``) and the model's view of it (``text``)."""

    raw: str
    text: str
    bom: bool
    eol: Eol
    """The line ending inserted text gets (the buffer's dominant one)."""
    style: BreakStyle
    _crlf: tuple[int, ...] = field(default=(), repr=False)
    """Mixed buffers only: offsets in ``text`` of each ``\\n`` that is a CRLF in ``raw``."""

    @classmethod
    def of(cls, raw: str) -> BufferView:
        """The view of the buffer text ``raw``."""
        bom = raw.startswith(BOM)
        body = raw[1:] if bom else raw
        if "\r" not in body or "\r\n" not in body:  # one-character search first: C memchr
            return cls(raw=raw, text=body, bom=bom, eol="\n", style="lf")
        text = normalize_eol(body)
        if body.count("\r\n") == body.count("\n"):
            return cls(raw=raw, text=text, bom=bom, eol="\r\n", style="crlf")
        crlf: list[int] = []
        found = body.find("\r\n")
        while found >= 0:
            crlf.append(found - len(crlf))
            found = body.find("\r\n", found + 2)
        return cls(
            raw=raw, text=text, bom=bom, eol=detect_eol(body), style="mixed", _crlf=tuple(crlf)
        )

    def restyled(self, content: str) -> str:
        """``content`` (a whole new text) in this buffer's style: its byte-order mark, and its
        CRLF line endings when ``content`` has no CR of its own (else it is taken as given)."""
        if self.bom and not content.startswith(BOM):
            content = BOM + content
        if self.eol == "\r\n" and "\r" not in content:
            content = content.replace("\n", "\r\n")
        return content

    def change_to(self, text: str) -> tuple[TextDiff, tuple[TextHunk, ...]]:
        """The diff of the model's text to ``text`` (the model's spelling), diffed once, and
        its replacements as hunks of ``raw``. Never raises."""
        diff = diff_texts(self.text, text)
        return diff, self.to_buffer(diff.text_hunks)

    def edited(self, edits: Sequence[LiteralEdit], display_path: str) -> BufferEdit:
        """``edits`` applied to the model's text and diffed once (``change_to``).

        Raises ``FsError`` as ``apply_literal_edits`` does, naming ``display_path``.
        """
        applied = apply_literal_edits(self.text, edits, display_path=display_path)
        diff, hunks = self.change_to(applied.text)
        return BufferEdit(before=self.text, applied=applied, diff=diff, hunks=hunks)

    def write_change(self, content: str) -> tuple[TextDiff | None, tuple[TextHunk, ...], str]:
        """What replacing the buffer with ``content`` sends: the model-text diff (None when
        it was not the one the hunks came from), the hunks of ``raw``, and the buffer text
        they produce (``restyled(content)``).

        Content in the model's spelling (no CR, no byte-order mark) over a buffer that is not
        of mixed line endings is diffed once on the model's text (``change_to``); anything
        else is diffed on the buffer texts, so the result is exactly ``restyled(content)``.
        Never raises."""
        after = normalize_eol(strip_bom(content)[1])
        if content == after and self.style != "mixed":
            diff, hunks = self.change_to(after)
            return diff, hunks, apply_hunks(self.raw, hunks)
        wanted = self.restyled(content)
        return None, diff_texts(self.raw, wanted).text_hunks, wanted

    def buffer_text(self, text: str) -> str:
        """``text`` (the model's spelling) as it would be typed into this buffer."""
        return text.replace("\n", "\r\n") if self.eol == "\r\n" else text

    def to_buffer(self, hunks: Sequence[TextHunk]) -> tuple[TextHunk, ...]:
        """``hunks`` of ``text`` (ordered) as hunks of ``raw``."""
        offsets = [offset for hunk in hunks for offset in (hunk.start, hunk.end)]
        mapped = self._buffer_offsets(offsets)
        return tuple(
            TextHunk(
                start=mapped[2 * i],
                end=mapped[2 * i + 1],
                new_text=self.buffer_text(hunk.new_text),
            )
            for i, hunk in enumerate(hunks)
        )

    def _buffer_offsets(self, offsets: Sequence[int]) -> list[int]:
        shift = 1 if self.bom else 0
        match self.style:
            case "lf":
                return [offset + shift for offset in offsets]
            case "crlf":
                mapped: list[int] = []
                crs, cursor = 0, 0
                for offset in offsets:
                    crs += self.text.count("\n", cursor, offset)
                    cursor = offset
                    mapped.append(offset + crs + shift)
                return mapped
            case "mixed":
                return [offset + bisect_left(self._crlf, offset) + shift for offset in offsets]
            case _:
                assert_never(self.style)
