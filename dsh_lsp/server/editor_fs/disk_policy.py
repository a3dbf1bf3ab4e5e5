"""The disk policy of editor edits: the user saves, or the editor saves after each turn (server).

Agent edits land in the editor's buffers as unsaved changes, exactly like the user's own
typing: reviewable, undoable, and on disk once saved. ``DiskSync`` keeps the list of
documents the agent changed that the editor has not saved since (a didSave or a didClose
takes a document off it). Two ways get them to disk:

- the user saves (the default; ``dsh.edits.saveAfterTurn`` false);
- with ``dsh.edits.saveAfterTurn`` true, at the end of every turn the server asks the editor
  to save them with ``dsh/saveDocuments``, which the dsh editor plugins answer (a client
  without the ``saveDocuments`` capability cannot be asked: the user saves).

Whatever reaches disk when, the agent always reads what the editor holds (``editor_fs``).
Anything that reads the disk instead (a shell command, a test run) calls ``save`` first, or
tells the model which files are still unsaved (``unsaved``).
"""

from __future__ import annotations

import logging

from dsh_lsp.fs_tools import FsError
from dsh_lsp.server.buffers.documents import DocumentEvent

from .editor_connection import EditorConnection

_log = logging.getLogger(__name__)


class DiskSync:
    """Agent-edited documents not saved yet, and asking the editor to save them."""

    __slots__ = ("_editor", "_unsaved")

    def __init__(self, editor: EditorConnection) -> None:
        self._editor = editor
        self._unsaved: dict[str, None] = {}

    def edited(self, uri: str) -> None:
        """The agent changed ``uri`` in the editor."""
        self._unsaved[uri] = None

    def on_document_event(self, event: DocumentEvent) -> None:
        """A saved or closed document no longer waits for a save."""
        if event.kind in ("saved", "closed"):
            self._unsaved.pop(event.uri, None)

    def unsaved(self) -> tuple[str, ...]:
        """Documents with agent edits the editor has not saved, in edit order."""
        return tuple(self._unsaved)

    async def save(self) -> tuple[str, ...]:
        """Ask the editor to save every unsaved agent edit; returns the URIs it saved.

        Never raises for the editor's failure (it is logged); cancellation propagates.
        """
        pending = self.unsaved()
        if not pending or not self._editor.capabilities.save_documents:
            return ()
        try:
            saved = await self._editor.save_documents(pending)
        except FsError as exc:
            _log.warning("dsh/saveDocuments failed: %s", exc)
            return ()
        for uri in saved:
            self._unsaved.pop(uri, None)
        return saved
