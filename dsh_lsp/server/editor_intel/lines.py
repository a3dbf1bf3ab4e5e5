"""Lines of context for result locations: from the editor's buffer, else from disk (server).

``LineSource`` reads a document's lines once per tool result: the mirror's text when the
editor has it open (unsaved changes included), else the file on disk (files above
``MAX_CONTEXT_BYTES`` or unreadable give no context). Paths in results are shown relative
to the session's folder when they lie below it (``fs_tools.shown_path``).
"""

from __future__ import annotations

import os
from typing import Final

import anyio
from pygls.uris import to_fs_path

from dsh_lsp.server.buffers import OpenDocuments, line_texts

MAX_CONTEXT_BYTES: Final = 4 << 20
"""Files larger than this give no line of context."""
MAX_LINE_CHARS: Final = 200
"""A context line is cut after this many characters."""


def uri_path(uri: str) -> str:
    """The file-system path of a ``file:`` URI (the URI itself for other schemes)."""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return path or uri


def clip(text: str, limit: int = MAX_LINE_CHARS) -> str:
    """``text`` stripped, cut to ``limit`` characters (with an ellipsis)."""
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


class LineSource:
    """Reads and caches documents' lines for one result; owns no resources."""

    __slots__ = ("_cache", "_documents")

    def __init__(self, documents: OpenDocuments) -> None:
        self._documents = documents
        self._cache: dict[str, list[str] | None] = {}

    async def lines(self, uri: str) -> list[str] | None:
        """The lines of ``uri`` (None when it cannot be read). Never raises."""
        if uri in self._cache:
            return self._cache[uri]
        document = self._documents.get(uri)
        found: list[str] | None
        if document is not None:
            found = line_texts(document.text())
        else:
            found = await anyio.to_thread.run_sync(_read_lines, uri_path(uri))
        self._cache[uri] = found
        return found

    async def line(self, uri: str, line: int) -> str | None:
        """Line ``line`` (zero-based) of ``uri``, or None."""
        lines = await self.lines(uri)
        if lines is None or not 0 <= line < len(lines):
            return None
        return lines[line]


def _read_lines(path: str) -> list[str] | None:
    try:
        if os.path.getsize(path) > MAX_CONTEXT_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace", newline="") as file:
            return line_texts(file.read())
    except OSError:
        return None
