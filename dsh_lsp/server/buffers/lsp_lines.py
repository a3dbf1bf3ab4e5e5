"""LSP lines: a text split at ``\\r\\n``, ``\\r`` and ``\\n`` only, terminators kept (server layer).

The shape the document mirror keeps: every line but the last ends with its terminator, and
the last has none (it is empty when the text ends with a line break, and for empty text), so
``len(lines)`` is the LSP line count and ``"".join(lines)`` the text. ``str.splitlines`` is
C-fast but also splits at form feeds, U+2028 and other separators LSP ignores; it is used only
when the text holds none of them.
"""

from __future__ import annotations

import re
from typing import Final

_EXOTIC_ASCII: Final = "\x0b\x0c\x1c\x1d\x1e"
_EXOTIC_OTHER: Final = "\x85\u2028\u2029"
_BREAK: Final = re.compile(r"(\r\n|\r|\n)")


def split_lsp_lines(text: str) -> list[str]:
    """``text`` as LSP lines (see the module docstring); never empty."""
    lines = split_keeping_ends(text)
    if not lines or line_break(lines[-1]):
        lines.append("")
    return lines


def split_keeping_ends(text: str) -> list[str]:
    """``text`` cut after each LSP line break; no empty last piece (``[]`` for ``""``)."""
    if _plain(text):
        return text.splitlines(keepends=True)
    parts = _BREAK.split(text)
    lines = [parts[i] + parts[i + 1] for i in range(0, len(parts) - 1, 2)]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def line_texts(text: str) -> list[str]:
    """The LSP lines of ``text`` without their terminators (``[""]`` for ``""``)."""
    return _BREAK.split(text)[::2]


def line_break(line: str) -> str:
    """The terminator ``line`` ends with (``""`` for none)."""
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith(("\n", "\r")):
        return line[-1]
    return ""


def content(line: str) -> str:
    """``line`` without its terminator."""
    return line[: len(line) - len(line_break(line))]


def _plain(text: str) -> bool:
    """True when ``str.splitlines`` splits ``text`` exactly where LSP does."""
    if any(char in text for char in _EXOTIC_ASCII):
        return False
    return text.isascii() or not any(char in text for char in _EXOTIC_OTHER)
