"""Model-friendly positions: a 1-based line and a symbol name → an LSP position (server layer).

The model names a line and the symbol on it; the server finds the symbol in that line of the
text the agent sees (the editor's buffer when the document is open) and sends the position
of its first character in the negotiated encoding (UTF-16 by default: a character outside
the Basic Multilingual Plane counts two units). An occurrence standing as a whole word is
preferred over one inside a longer name; a dotted name (``os.path.join``) points at its last
part; a trailing ``()`` is ignored. Pure functions.
"""

from __future__ import annotations

from dsh_lsp.server.buffers import PositionEncoding, index_at, positions_at


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def symbol_index(line: str, symbol: str) -> int | None:
    """The offset in ``line`` where ``symbol`` starts (see the module docstring), or None
    when it is not on the line."""
    wanted = symbol.strip()
    if wanted.endswith("()"):
        wanted = wanted[:-2].rstrip()
    if not wanted:
        return None
    first: int | None = None
    start = line.find(wanted)
    while start >= 0:
        end = start + len(wanted)
        before = line[start - 1] if start > 0 else ""
        after = line[end] if end < len(line) else ""
        whole = not (before and _is_word(before) and _is_word(wanted[0])) and not (
            after and _is_word(after) and _is_word(wanted[-1])
        )
        if whole:
            first = start
            break
        if first is None:
            first = start
        start = line.find(wanted, start + 1)
    if first is None:
        return None
    dot = wanted.rfind(".")
    if 0 < dot < len(wanted) - 1:
        return first + dot + 1
    return first


def symbol_column(line: str, symbol: str, encoding: PositionEncoding) -> int | None:
    """The column, in ``encoding`` units, of ``symbol`` on ``line``, or None."""
    index = symbol_index(line, symbol)
    if index is None:
        return None
    return positions_at(line, (index,), encoding)[0].character


def display_column(line: str, character: int, encoding: PositionEncoding) -> int:
    """The 1-based character column of an LSP ``character`` (``encoding`` units) on
    ``line``."""
    return index_at(line, character, encoding) + 1
