"""Text rules shared by every provider: binary detection, UTF-8, BOM and line endings (fs_tools).

Pure functions over bytes and str. The model always sees text without a byte-order mark and
(for edits) with ``\\n`` line endings; ``Document`` remembers what the file had so a write-back
restores it byte for byte outside the edited region:

- binary: a NUL byte in the first ``SNIFF_BYTES`` (reads) or anywhere (edits);
- encoding: strict UTF-8; anything else is not text;
- BOM: a leading U+FEFF is hidden from the model and preserved on write-back;
- line endings: CRLF when the first ``EOL_SNIFF_CHARS`` characters hold more CRLF than bare LF
  line breaks; edits normalize to ``\\n`` and convert the whole file back on write.

Lines are split on ``\\n`` only, never ``str.splitlines`` (which also splits on ``\\r``,
``\\x0b``, U+2028 and others).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from .errors import FsError

BOM: Final = "\ufeff"
"""The byte-order mark as a character (UTF-8 bytes ``EF BB BF``)."""
SNIFF_BYTES: Final = 8192
"""How many leading bytes a read inspects for NUL."""
EOL_SNIFF_CHARS: Final = 4096
"""How many leading characters decide a file's line-ending style."""

Eol = Literal["\n", "\r\n"]
"""A file's line-ending style."""


def looks_binary(head: bytes) -> bool:
    """True when ``head`` (the first bytes of a file) holds a NUL byte."""
    return b"\0" in head[:SNIFF_BYTES]


def decode_utf8(data: bytes, display_path: str) -> str:
    """Decode strict UTF-8. Raises FsError ``FS_NOT_TEXT`` naming the offending byte offset."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise not_text(display_path, f"is not valid UTF-8 (byte {exc.start})", exc) from None


def not_text(display_path: str, why: str, cause: BaseException | None = None) -> FsError:
    """The ``FS_NOT_TEXT`` error for ``display_path`` with a reason."""
    return FsError(
        "FS_NOT_TEXT",
        f"{display_path} {why}; it is not a text file this tool can handle",
        cause=cause,
    )


def strip_bom(text: str) -> tuple[bool, str]:
    """(had a BOM, text without it)."""
    if text.startswith(BOM):
        return True, text[1:]
    return False, text


def detect_eol(text: str) -> Eol:
    """CRLF when the sniffed prefix holds more CRLF than bare-LF line breaks, else LF."""
    head = text[:EOL_SNIFF_CHARS]
    crlf = head.count("\r\n")
    return "\r\n" if crlf > head.count("\n") - crlf else "\n"


def normalize_eol(text: str) -> str:
    """Every CRLF as LF (lone CRs are kept)."""
    return text.replace("\r\n", "\n")


def split_lines(text: str) -> list[str]:
    """Lines split on ``\\n`` only; a trailing newline yields no extra empty line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


@dataclass(frozen=True, slots=True, kw_only=True)
class Document:
    """A text file as edits see it: ``\\n``-normalized text plus what the bytes had."""

    text: str
    bom: bool
    eol: Eol

    @classmethod
    def decode(cls, data: bytes, display_path: str) -> Document:
        """Parse file bytes. Raises FsError ``FS_NOT_TEXT`` for NUL anywhere or bad UTF-8."""
        if b"\0" in data:
            raise not_text(display_path, "contains NUL bytes")
        bom, raw = strip_bom(decode_utf8(data, display_path))
        return cls(text=normalize_eol(raw), bom=bom, eol=detect_eol(raw))

    def with_text(self, text: str) -> Document:
        """The same file style around new (``\\n``-normalized) text."""
        return Document(text=text, bom=self.bom, eol=self.eol)

    def encode(self) -> bytes:
        """The bytes to store: line endings and byte-order mark restored."""
        body = self.text.replace("\n", "\r\n") if self.eol == "\r\n" else self.text
        return ((BOM if self.bom else "") + body).encode("utf-8")
