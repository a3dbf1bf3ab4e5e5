"""LSP positions: code units of the negotiated encoding ↔ Python string offsets (server layer).

An LSP ``Position`` is a zero-based line and a column counted in the code units of the
position encoding agreed in ``initialize``: UTF-16 (the default; a character outside the Basic
Multilingual Plane such as most emoji counts 2), UTF-8 (1 to 4 per character) or UTF-32 (1 per
character, like a Python ``str`` index). Lines end at ``\\r\\n``, ``\\r`` or ``\\n`` and at nothing
else (``str.splitlines`` would also split at ``\\x0b``, U+2028 and others, so it is never used
unchecked here).

Pure functions. Offsets handed to ``positions_at`` must not split a ``\\r\\n`` pair: LSP has no
position between the two characters (``widen_crlf`` moves a range out of one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from dsh_lsp.llm import JsonObject

PositionEncoding = Literal["utf-8", "utf-16", "utf-32"]
"""The position encodings LSP 3.17 defines."""

DEFAULT_ENCODING: Final[PositionEncoding] = "utf-16"
"""The encoding when the client names none (LSP's mandatory default)."""

_KNOWN: Final[dict[str, PositionEncoding]] = {
    "utf-8": "utf-8",
    "utf-16": "utf-16",
    "utf-32": "utf-32",
}


def parse_encoding(value: object) -> PositionEncoding:
    """The encoding named by ``value`` (an LSP ``PositionEncodingKind``, or its string);
    UTF-16 otherwise."""
    name = getattr(value, "value", value)
    return _KNOWN.get(name, DEFAULT_ENCODING) if isinstance(name, str) else DEFAULT_ENCODING


@dataclass(frozen=True, slots=True, kw_only=True)
class Position:
    """A zero-based line and a column in code units of some encoding."""

    line: int
    character: int

    def to_json(self) -> JsonObject:
        """The LSP ``Position`` object."""
        return {"line": self.line, "character": self.character}


def units(text: str, encoding: PositionEncoding) -> int:
    """How many code units ``text`` occupies in ``encoding``.

    A lone surrogate (possible in JSON-decoded text) counts as one UTF-16 unit and three UTF-8
    units, as the editor that sent it would count it.
    """
    if encoding == "utf-32" or text.isascii():
        return len(text)
    if encoding == "utf-16":
        return len(text.encode("utf-16-le", "surrogatepass")) // 2
    return len(text.encode("utf-8", "surrogatepass"))


def index_at(line: str, column: int, encoding: PositionEncoding) -> int:
    """The offset in ``line`` (a line's content, without its terminator) of ``column`` units.

    A column past the end clamps to the end (as LSP asks); a column inside a character's code
    units rounds down to that character's start.
    """
    if column <= 0:
        return 0
    if encoding == "utf-32" or line.isascii():
        return min(column, len(line))
    counted = 0
    for index, char in enumerate(line):
        counted += _char_units(char, encoding)
        if counted > column:
            return index
        if counted == column:
            return index + 1
    return len(line)


def _char_units(char: str, encoding: PositionEncoding) -> int:
    point = ord(char)
    if encoding == "utf-16":
        return 2 if point > 0xFFFF else 1
    if point < 0x80:
        return 1
    if point < 0x800:
        return 2
    return 3 if point < 0x10000 else 4


def positions_at(
    text: str, offsets: Sequence[int], encoding: PositionEncoding
) -> tuple[Position, ...]:
    """The LSP positions of ascending ``offsets`` into ``text``, in one pass over the text.

    Raises ValueError when the offsets are not ascending or lie outside the text.
    """
    has_cr = "\r" in text
    line = 0
    line_start = 0
    cursor = 0
    found: list[Position] = []
    for offset in offsets:
        if offset < cursor or offset > len(text):
            raise ValueError(f"offset {offset} is out of order or outside the text")
        if has_cr:
            line += (
                text.count("\n", cursor, offset)
                + text.count("\r", cursor, offset)
                - text.count("\r\n", cursor, offset)
            )
            last = max(text.rfind("\n", cursor, offset), text.rfind("\r", cursor, offset))
        else:
            line += text.count("\n", cursor, offset)
            last = text.rfind("\n", cursor, offset)
        if last >= 0:
            line_start = last + 1
        found.append(Position(line=line, character=units(text[line_start:offset], encoding)))
        cursor = offset
    return tuple(found)


def splits_crlf(text: str, offset: int) -> bool:
    """True when ``offset`` falls between the ``\\r`` and the ``\\n`` of a line break."""
    return 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n"
