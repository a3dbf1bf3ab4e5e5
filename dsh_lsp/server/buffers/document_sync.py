"""DocumentSyncProtocol: document notifications feed the server's own mirror (server layer).

pygls keeps its own copy of every open document and rebuilds the whole text on each
incremental change (tens of milliseconds at 100,000 lines, on the event loop, for every
keystroke). This protocol routes ``didOpen``/``didChange``/``didClose``/``didSave`` to
``OpenDocuments`` instead (see ``documents``), and keeps ``ls.workspace`` answering with the
same text by replacing pygls's document wholesale (no re-split), so code that reads
``ls.workspace`` (prompt attachments) sees exactly what the mirror has. Registering
``didSave`` makes the server ask for save notifications (``textDocumentSync.save``).
Buffer text holding an unpaired surrogate (not valid Unicode, so no tool could read, store or
save it) is mirrored with U+FFFD in its place: one UTF-16 unit for one, so every position the
client sends still lands where it meant.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from functools import wraps
from typing import Any, TypeVar

from lsprotocol import types
from pygls.protocol import lsp_method

from dsh_lsp.llm import storable_text
from dsh_lsp.server.wire import DshProtocol

from .documents import ContentChange, OpenDocuments
from .positions import Position

P = TypeVar("P")
Step = Callable[["DocumentSyncProtocol", P], None]
"""What a document notification does to the mirror."""
Handler = Callable[["DocumentSyncProtocol", P], Generator[Any, Any, None]]
"""pygls's handler protocol: it yields the user's handler to run (Any: untyped)."""


def _mirroring(method: str) -> Callable[[Step[P]], Handler[P]]:
    """The pygls handler of the document notification ``method``: the mirror step it wraps,
    then the user's handler of ``method``, if the server has one."""

    def decorator(step: Step[P]) -> Handler[P]:
        @lsp_method(method)
        @wraps(step)
        def handler(self: DocumentSyncProtocol, params: P) -> Generator[Any, Any, None]:
            step(self, params)
            user = self.fm.features.get(method)
            if user is not None:
                yield user, (params,), None

        return handler

    return decorator


class DocumentSyncProtocol(DshProtocol):
    """``DshProtocol`` with the document handlers described in the module docstring."""

    # Any: pygls's signatures are untyped.
    def __init__(self, server: Any, converter: Any) -> None:
        super().__init__(server, converter)
        self.documents = OpenDocuments()
        """The mirror; its position encoding is set once ``initialize`` negotiated it."""

    @_mirroring(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        """Mirror the opened document."""
        item = params.text_document
        text = storable_text(item.text)
        if text is not item.text:
            item = types.TextDocumentItem(
                uri=item.uri, language_id=item.language_id, version=item.version, text=text
            )
        self.documents.open(item.uri, item.version, item.text)
        self.workspace.put_text_document(item)

    @_mirroring(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        """Apply the changes to the mirror, then hand pygls the resulting text."""
        uri = params.text_document.uri
        self.documents.change(
            uri, params.text_document.version, [_change(c) for c in params.content_changes]
        )
        document = self.documents.get(uri)
        if document is not None:
            previous = self.workspace.text_documents.get(uri)
            item = types.TextDocumentItem(
                uri=uri,
                language_id=(previous.language_id if previous else None) or "",
                version=document.version,
                text=document.text(),
            )
            self.workspace.put_text_document(item)

    @_mirroring(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        """Stop mirroring the document."""
        self.documents.close(params.text_document.uri)
        self.workspace.remove_text_document(params.text_document.uri)

    @_mirroring(types.TEXT_DOCUMENT_DID_SAVE)
    def lsp_text_document__did_save(self, params: types.DidSaveTextDocumentParams) -> None:
        """Tell the mirror's listeners (pending saves of agent edits)."""
        self.documents.saved(params.text_document.uri)


def _change(change: types.TextDocumentContentChangeEvent) -> ContentChange:
    if isinstance(change, types.TextDocumentContentChangePartial):
        start, end = change.range.start, change.range.end
        return ContentChange(
            range=(
                Position(line=start.line, character=start.character),
                Position(line=end.line, character=end.character),
            ),
            text=storable_text(change.text),
        )
    return ContentChange(range=None, text=storable_text(change.text))
