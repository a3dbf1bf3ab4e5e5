"""The disk policy of editor edits: the user saves, or the editor saves after each turn (server).

Agent edits land in the editor's buffers as unsaved changes, exactly like the user's own
typing: reviewable, undoable, and on disk once saved. ``DiskSync`` keeps the list of
documents the agent changed that the editor has not saved since (a didSave or a didClose
takes a document off it). Two ways get them to disk:

- the user saves (the default; ``dsh.edits.saveAfterTurn`` false);
- with ``dsh.edits.saveAfterTurn`` true, at the end of every turn the server asks the editor
  to save them with ``dsh/saveDocuments``, which the dsh editor plugins answer (a client
  without the ``saveDocuments`` capability cannot be asked: the user saves).

Whatever reaches disk when, the agent always reads what the editor holds (``file_system``).
Anything that reads the disk instead (a shell command, a test run) calls ``save`` first, or
tells the model which files are still unsaved (``unsaved``). Both take the session: each
edit is recorded for the session whose tool call made it (``edit_labels.current_session``),
so two sessions on one connection never save each other's edits.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable
from typing import Final, Literal

from dsh_lsp.fs_tools import FsError
from dsh_lsp.llm import SessionId
from dsh_lsp.server.buffers import DocumentEvent

from .edit_labels import current_session
from .editor_connection import EditorConnection

_log = logging.getLogger(__name__)


class _All(enum.Enum):
    ALL = "all"


ALL: Final[Literal[_All.ALL]] = _All.ALL
"""Every session's edits (``DiskSync.unsaved`` / ``save``)."""


class DiskSync:
    """Agent-edited documents not saved yet, by the session whose call edited them, and
    asking the editor to save them."""

    __slots__ = ("_editor", "_owner", "_unsaved")

    def __init__(
        self, editor: EditorConnection, owner: Callable[[], SessionId | None] = current_session
    ) -> None:
        self._editor = editor
        self._owner = owner
        self._unsaved: dict[str, set[SessionId | None]] = {}

    def edited(self, uri: str) -> None:
        """The agent changed ``uri`` in the editor (for the session of the running call)."""
        self._unsaved.setdefault(uri, set()).add(self._owner())

    def on_document_event(self, event: DocumentEvent) -> None:
        """A saved or closed document no longer waits for a save."""
        if event.kind in ("saved", "closed"):
            self._unsaved.pop(event.uri, None)

    def unsaved(self, session: SessionId | _All | None = ALL) -> tuple[str, ...]:
        """Documents with agent edits the editor has not saved, in edit order: every
        session's (``ALL``), or those ``session`` edited plus those edited outside any
        session's call (nobody else would save them)."""
        if session is ALL:
            return tuple(self._unsaved)
        return tuple(
            uri for uri, owners in self._unsaved.items() if session in owners or None in owners
        )

    async def save(self, session: SessionId | _All | None = ALL) -> tuple[str, ...]:
        """Ask the editor to save the unsaved agent edits (every session's, or those of
        ``session``: another session's edits are not its to save); returns the URIs saved.

        A document two sessions edited is one buffer: saving it saves both sessions' edits.
        Never raises for the editor's failure (it is logged); cancellation propagates.
        """
        pending = self.unsaved(session)
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
