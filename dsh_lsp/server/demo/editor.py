"""The demo client's editor half: one buffer that takes ``workspace/applyEdit`` (server layer).

``dsh-lsp demo`` plays the editor. With this, it advertises what VS Code does for edits
(``applyEdit``, versioned ``documentChanges``, UTF-16 positions) and answers
``workspace/applyEdit`` as an editor does: it checks the document version, applies the text
edits to its own unsaved buffer (last position first), and sends the matching didChange
before it answers. The agent's edit therefore lands in the open, unsaved document, and the
file on disk stays as it was until someone saves it.
"""

from __future__ import annotations

import logging
from typing import Final

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from dsh_lsp.server.buffers.documents import ContentChange, OpenDocument
from dsh_lsp.server.buffers.positions import Position, positions_at

_log = logging.getLogger(__name__)

EDIT_CAPABILITIES: Final = types.WorkspaceClientCapabilities(
    apply_edit=True,
    workspace_edit=types.WorkspaceEditClientCapabilities(
        document_changes=True,
        resource_operations=[types.ResourceOperationKind.Create],
    ),
)
"""The workspace capabilities the demo client advertises."""


class DemoEditor:
    """One open buffer of the demo client."""

    def __init__(self, client: LanguageClient, uri: str, text: str) -> None:
        self._client = client
        self.uri = uri
        self.buffer = OpenDocument(uri, None, 1, 1, text)
        self.edits: list[types.ApplyWorkspaceEditParams] = []

        def on_apply(
            ls: LanguageClient, params: types.ApplyWorkspaceEditParams
        ) -> types.ApplyWorkspaceEditResult:
            return self._apply(params)

        client.feature(types.WORKSPACE_APPLY_EDIT)(on_apply)

    def open(self) -> None:
        """Send didOpen for the buffer."""
        self._client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=self.uri, language_id="markdown", version=1, text=self.buffer.text()
                )
            )
        )

    def type(self, old: str, new: str) -> None:
        """The user replaces the first ``old`` with ``new`` (unsaved)."""
        text = self.buffer.text()
        start = text.index(old)
        self._change([(self._position(start), self._position(start + len(old)), new)])

    def _apply(self, params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        self.edits.append(params)
        changes: list[tuple[Position, Position, str]] = []
        for change in params.edit.document_changes or ():
            if not isinstance(change, types.TextDocumentEdit):
                return types.ApplyWorkspaceEditResult(applied=False, failure_reason="unsupported")
            if change.text_document.uri != self.uri:
                return types.ApplyWorkspaceEditResult(applied=False, failure_reason="not open")
            version = change.text_document.version
            if version is not None and version != self.buffer.version:
                reason = f"version {version} is not the buffer's {self.buffer.version}"
                return types.ApplyWorkspaceEditResult(applied=False, failure_reason=reason)
            for edit in change.edits:
                if isinstance(edit, types.SnippetTextEdit):
                    return types.ApplyWorkspaceEditResult(applied=False, failure_reason="snippet")
                start, end = edit.range.start, edit.range.end
                changes.append(
                    (
                        Position(line=start.line, character=start.character),
                        Position(line=end.line, character=end.character),
                        edit.new_text,
                    )
                )
        changes.sort(key=lambda c: (c[0].line, c[0].character), reverse=True)
        self._change(changes)
        return types.ApplyWorkspaceEditResult(applied=True)

    def _change(self, changes: list[tuple[Position, Position, str]]) -> None:
        for start, end, text in changes:
            self.buffer.apply(ContentChange(range=(start, end), text=text), "utf-16")
        self.buffer.version += 1
        self._client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=self.uri, version=self.buffer.version
                ),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(
                            start=types.Position(line=s.line, character=s.character),
                            end=types.Position(line=e.line, character=e.character),
                        ),
                        text=text,
                    )
                    for s, e, text in changes
                ],
            )
        )

    def _position(self, offset: int) -> Position:
        return positions_at(self.buffer.text(), [offset], "utf-16")[0]
