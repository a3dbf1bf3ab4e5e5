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

from collections.abc import Generator
from typing import Any

from lsprotocol import types
from pygls.protocol import lsp_method

from dsh_lsp.llm import storable_text
from dsh_lsp.server.wire import DshProtocol

from .documents import ContentChange, OpenDocuments
from .positions import Position


class DocumentSyncProtocol(DshProtocol):
    """``DshProtocol`` with the document handlers described in the module docstring."""

    # Any: pygls's signatures are untyped.
    def __init__(self, server: Any, converter: Any) -> None:
        super().__init__(server, converter)
        self.documents = OpenDocuments()
        """The mirror; its position encoding is set once ``initialize`` negotiated it."""

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(
        self, params: types.DidOpenTextDocumentParams
    ) -> Generator[Any, Any, None]:  # Any: pygls's handler protocol
        """Mirror the opened document."""
        item = params.text_document
        text = storable_text(item.text)
        if text is not item.text:
            item = types.TextDocumentItem(
                uri=item.uri, language_id=item.language_id, version=item.version, text=text
            )
        self.documents.open(item.uri, item.version, item.text)
        self.workspace.put_text_document(item)
        yield from self._user(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:  # Any: pygls's handler protocol
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
        yield from self._user(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(
        self, params: types.DidCloseTextDocumentParams
    ) -> Generator[Any, Any, None]:  # Any: pygls's handler protocol
        """Stop mirroring the document."""
        self.documents.close(params.text_document.uri)
        self.workspace.remove_text_document(params.text_document.uri)
        yield from self._user(types.TEXT_DOCUMENT_DID_CLOSE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_SAVE)
    def lsp_text_document__did_save(
        self, params: types.DidSaveTextDocumentParams
    ) -> Generator[Any, Any, None]:  # Any: pygls's handler protocol
        """Tell the mirror's listeners (pending saves of agent edits)."""
        self.documents.saved(params.text_document.uri)
        yield from self._user(types.TEXT_DOCUMENT_DID_SAVE, params)

    def _user(self, method: str, params: object) -> Generator[Any, Any, None]:
        handler = self.fm.features.get(method)
        if handler is not None:
            yield handler, (params,), None


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
