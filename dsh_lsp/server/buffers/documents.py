"""OpenDocuments: the server's mirror of the documents the editor has open (server layer).

Fed by ``textDocument/didOpen``, ``didChange`` (incremental or full) and ``didClose``; read by
the editor-backed filesystem, which sees unsaved changes exactly as the user does. A document
is kept as LSP lines (``lsp_lines``), so an incremental change costs a look-up of the touched
lines and a list splice however long the document is (pygls's own mirror rebuilds the whole
text on every change: 20 ms and more at 100,000 lines). The text is joined on demand and
cached until the next change.

A document's ``key`` identifies its file like ``FsTarget.key`` does (the real path of a
``file:`` URI), and its version ``token`` is ``buffer:<generation>:<version>``: the generation
is unique to one didOpen, so reopening a file never revives an old token, and no token of the
mirror can equal a disk version.

``watch(uri, expected)`` lets an edit wait for the document to show a given text: every
intermediate state of a didChange (each content change in turn) is compared, cheaply, since
only states of the expected length are joined and compared.

``expect(uri, expected)`` records an edit the editor answered ``applied: true`` for but whose
didChange has not arrived yet (eglot sends it from an idle timer, sometimes only at the
user's next keystroke): until the next didChange the editor holds ``expected``, so reads see
it under a provisional token; the didChange that shows it makes that token an alias of the
state it names (``current_token``), so what the model read stays current. A didChange that
never shows it drops the expectation: the mirror's text is the truth again.
"""

from __future__ import annotations

import itertools
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

import anyio
from pygls.uris import to_fs_path

from .lsp_lines import content, line_break, split_keeping_ends, split_lsp_lines
from .positions import DEFAULT_ENCODING, Position, PositionEncoding, index_at

_log = logging.getLogger(__name__)

_END = 1 << 62
"""A column past the end of any line."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ContentChange:
    """One ``TextDocumentContentChangeEvent``: replace ``range`` (None: the whole text)."""

    range: tuple[Position, Position] | None
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DocumentEvent:
    """A document was opened, closed or saved in the editor."""

    kind: Literal["opened", "closed", "saved"]
    uri: str
    key: str | None


def file_key(uri: str) -> str | None:
    """The real path of a ``file:`` URI (symlinks resolved), None for other schemes."""
    if not uri.startswith("file:"):
        return None
    path = to_fs_path(uri)
    return None if path is None else os.path.realpath(path)


class OpenDocument:
    """One open document's text and version; changed only through ``OpenDocuments``."""

    __slots__ = ("_lines", "_text", "generation", "key", "length", "uri", "version")

    def __init__(self, uri: str, key: str | None, version: int, generation: int, text: str):
        self.uri = uri
        self.key = key
        self.version = version
        self.generation = generation
        self._lines = split_lsp_lines(text)
        self._text: str | None = text
        self.length = len(text)

    @property
    def token(self) -> str:
        """The version token of the current text (see the module docstring)."""
        return f"buffer:{self.generation}:{self.version}"

    def text(self) -> str:
        """The whole current text."""
        if self._text is None:
            self._text = "".join(self._lines)
        return self._text

    @property
    def line_count(self) -> int:
        """How many LSP lines the text has (a final line break starts an empty last line)."""
        return len(self._lines)

    def apply(self, change: ContentChange, encoding: PositionEncoding) -> None:
        """Apply one content change; positions past the end clamp to the end."""
        if change.range is None:
            self._lines = split_lsp_lines(change.text)
            self._text = change.text
            self.length = len(change.text)
            return
        lines = self._lines
        start, end = change.range
        first, first_col = self._clamp(start)
        last, last_col = self._clamp(end)
        if (last, last_col) < (first, first_col):
            last, last_col = first, first_col
        head = lines[first][: index_at(content(lines[first]), first_col, encoding)]
        tail = lines[last][index_at(content(lines[last]), last_col, encoding) :]
        piece = head + change.text + tail
        if first > 0 and piece.startswith("\n") and line_break(lines[first - 1]) == "\r":
            first -= 1  # a lone CR before the piece and its LF become one CRLF
            piece = lines[first] + piece
        removed = sum(len(line) for line in lines[first : last + 1])
        replacement = split_keeping_ends(piece)
        if last == len(lines) - 1 and (not replacement or line_break(replacement[-1])):
            replacement.append("")
        lines[first : last + 1] = replacement
        self.length += len(piece) - removed
        self._text = None

    def _clamp(self, position: Position) -> tuple[int, int]:
        if position.line >= len(self._lines):
            return len(self._lines) - 1, _END
        return max(position.line, 0), max(position.character, 0)


class TextWatch:
    """Whether a document showed ``expected``; see ``OpenDocuments.watch``."""

    __slots__ = ("closed", "expected", "seen", "shown_at", "uri")

    def __init__(self, uri: str, expected: str) -> None:
        self.uri = uri
        self.expected = expected
        self.seen = anyio.Event()
        """Set when the text matched or the document closed."""
        self.shown_at: str | None = None
        """The document's token when it matched (an intermediate state of a didChange gets a
        token that matches no later state, so whoever holds it reads again first)."""
        self.closed = False


@dataclass(slots=True, kw_only=True)
class _Expectation:
    expected: str
    token: str
    version: int


class OpenDocuments:
    """The mirror; see the module docstring. One per connection, fed by the LSP handlers."""

    def __init__(self, encoding: PositionEncoding = DEFAULT_ENCODING) -> None:
        self.encoding: PositionEncoding = encoding
        """The negotiated position encoding (set once ``initialize`` chose it)."""
        self._documents: dict[str, OpenDocument] = {}
        self._by_key: dict[str, OpenDocument] = {}
        self._watches: dict[str, list[TextWatch]] = {}
        self._generations = itertools.count(1)
        self._listeners: list[Callable[[DocumentEvent], None]] = []
        self._expectations: dict[str, _Expectation] = {}
        self._aliases: dict[str, str] = {}
        self._provisional = itertools.count(1)

    def get(self, uri: str) -> OpenDocument | None:
        """The open document at ``uri``."""
        return self._documents.get(uri)

    def version_of(self, uri: str, token: str) -> int | None:
        """The document version ``token`` names when it is the token of a whole didChange
        of the document open at ``uri`` now (not a provisional or intermediate state)."""
        document = self._documents.get(uri)
        if document is None:
            return None
        number = token.removeprefix(f"buffer:{document.generation}:")
        return int(number) if number != token and number.isascii() and number.isdigit() else None

    def by_key(self, key: str) -> OpenDocument | None:
        """The open document whose file has real path ``key``."""
        return self._by_key.get(key)

    def __len__(self) -> int:
        return len(self._documents)

    def all(self) -> tuple[OpenDocument, ...]:
        """Every open document, in the order they were opened."""
        return tuple(self._documents.values())

    def subscribe(self, listener: Callable[[DocumentEvent], None]) -> Callable[[], None]:
        """Call ``listener`` (synchronously; it must not raise) after every open, close and
        save; returns the unsubscriber."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def open(self, uri: str, version: int, text: str) -> OpenDocument:
        """``didOpen``: start mirroring ``uri`` (a second didOpen replaces the first)."""
        self._expectations.pop(uri, None)
        self._drop(uri)
        document = OpenDocument(uri, file_key(uri), version, next(self._generations), text)
        self._documents[uri] = document
        if document.key is not None:
            self._by_key[document.key] = document
        self._check(document, document.token)
        self._tell(DocumentEvent(kind="opened", uri=uri, key=document.key))
        return document

    def change(self, uri: str, version: int, changes: Sequence[ContentChange]) -> None:
        """``didChange``: apply ``changes`` in order; an unknown URI is logged and ignored."""
        document = self._documents.get(uri)
        if document is None:
            _log.warning("didChange for %s, which is not open; ignored", uri)
            return
        expectation = self._expectations.pop(uri, None)
        watched = bool(self._watches.get(uri)) or expectation is not None
        shown: str | None = None
        for index, change in enumerate(changes):
            document.apply(change, self.encoding)
            if watched and index < len(changes) - 1:
                shown = self._check(document, f"{document.token}+{index + 1}", expectation)
                if shown is not None:
                    expectation = None
        document.version = version
        if watched and self._check(document, document.token, expectation) is not None:
            expectation = None
        if expectation is not None:
            _log.warning("%s never showed the edit the editor reported as applied", uri)

    def expect(self, uri: str, expected: str) -> str | None:
        """Note that the editor holds ``expected`` at ``uri`` although no didChange showed it
        yet; returns the provisional token of that state (None when ``uri`` is not open)."""
        document = self._documents.get(uri)
        if document is None:
            return None
        token = f"{document.token}~{next(self._provisional)}"
        self._expectations[uri] = _Expectation(
            expected=expected, token=token, version=document.version
        )
        return token

    def expected(self, uri: str) -> tuple[str, str] | None:
        """The text and provisional token the editor holds at ``uri`` ahead of its
        didChange (see ``expect``), or None."""
        expectation = self._expectations.get(uri)
        return None if expectation is None else (expectation.expected, expectation.token)

    def current_token(self, document: OpenDocument, claimed: str | None = None) -> str:
        """The token of ``document``'s current state: ``claimed`` when it names that state
        (a provisional token whose didChange arrived since), the provisional token while
        the expectation lasts, else ``document.token``."""
        token = document.token
        expectation = self._expectations.get(document.uri)
        if expectation is not None:
            token = expectation.token
        if claimed is not None and self._aliases.get(claimed) == token:
            return claimed
        return token

    def close(self, uri: str) -> None:
        """``didClose``: stop mirroring ``uri``; its watches end unmatched."""
        self._expectations.pop(uri, None)
        document = self._drop(uri)
        for watch in self._watches.pop(uri, []):
            watch.closed = True
            watch.seen.set()
        if document is not None:
            self._tell(DocumentEvent(kind="closed", uri=uri, key=document.key))

    def saved(self, uri: str) -> None:
        """``didSave``: tell the listeners."""
        document = self._documents.get(uri)
        key = document.key if document is not None else file_key(uri)
        self._tell(DocumentEvent(kind="saved", uri=uri, key=key))

    @contextmanager
    def watch(self, uri: str, expected: str) -> Iterator[TextWatch]:
        """Watch ``uri`` for ``expected`` while the ``with`` body runs (register it before
        sending the edit, so a didChange that beats the reply is not missed)."""
        watch = TextWatch(uri, expected)
        self._watches.setdefault(uri, []).append(watch)
        try:
            yield watch
        finally:
            remaining = self._watches.get(uri)
            if remaining is not None and watch in remaining:
                remaining.remove(watch)
                if not remaining:
                    del self._watches[uri]

    def _check(
        self, document: OpenDocument, token: str, expectation: _Expectation | None = None
    ) -> str | None:
        """Match the watches (and ``expectation``) of ``document`` against its text;
        ``token`` names the state (a state inside a didChange gets a token no later state
        can equal). Returns ``token`` when ``expectation`` matched (its provisional token
        becomes an alias of ``token``)."""
        for watch in self._watches.get(document.uri, ()):
            if watch.seen.is_set() or document.length != len(watch.expected):
                continue
            if document.text() == watch.expected:
                watch.shown_at = token
                watch.seen.set()
        if (
            expectation is not None
            and document.length == len(expectation.expected)
            and document.text() == expectation.expected
        ):
            self._aliases[expectation.token] = token
            return token
        return None

    def _drop(self, uri: str) -> OpenDocument | None:
        document = self._documents.pop(uri, None)
        if (
            document is not None
            and document.key is not None
            and (self._by_key.get(document.key) is document)
        ):
            del self._by_key[document.key]
        return document

    def _tell(self, event: DocumentEvent) -> None:
        for listener in tuple(self._listeners):
            listener(event)
