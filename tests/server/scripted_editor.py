"""ScriptedEditor: an in-process ``EditorConnection`` for provider tests and the benchmark.

It owns its own buffers (``EditorModel``) and tells the server's mirror (``OpenDocuments``)
what an editor's notifications would: didOpen when the user opens a file, didChange after
every user keystroke and every applied edit. ``before_apply`` runs before an edit is applied
(the user typing first); with ``defer`` the notifications of an edit are held back until
``flush()``, like an editor that answers first and sends its didChange later; with
``decline`` every edit is answered ``applied: false`` without a reason (a user who dismissed
the editor's preview).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from pygls.uris import from_fs_path

from dsh_lsp.llm import JsonObject
from dsh_lsp.server.buffers.documents import ContentChange, OpenDocuments
from dsh_lsp.server.buffers.positions import Position
from dsh_lsp.server.editor_fs.edit_capabilities import EditCapabilities
from dsh_lsp.server.editor_fs.editor_connection import ApplyOutcome

from .editor_model import EditorBehaviour, EditorModel, Json, Notice

VSCODE = EditCapabilities(
    apply_edit=True, document_changes=True, create_files=True, change_annotations=True
)
"""VS Code's edit capabilities (UTF-16)."""
NEOVIM = EditCapabilities(
    apply_edit=True,
    document_changes=True,
    create_files=True,
    change_annotations=True,
    position_encoding="utf-8",
)
"""Neovim's (``resourceOperations`` implying ``documentChanges``; UTF-8 positions)."""


def uri_of(path: Path | str) -> str:
    """The ``file:`` URI of a path."""
    uri: str | None = from_fs_path(str(path))  # pygls leaves it untyped
    assert uri is not None
    return uri


class ScriptedEditor:
    """See the module docstring."""

    def __init__(
        self, capabilities: EditCapabilities = VSCODE, behaviour: EditorBehaviour | None = None
    ) -> None:
        self.capabilities = capabilities
        self.documents = OpenDocuments(capabilities.position_encoding)
        self.model = EditorModel(
            behaviour or EditorBehaviour(encoding=capabilities.position_encoding)
        )
        self.before_apply: Callable[[Json], Awaitable[None]] | None = None
        self.defer = False
        self.decline = False
        self.pending: list[Notice] = []
        self.save_requests: list[list[str]] = []

    def open(self, path: Path | str, text: str | None = None) -> str:
        """The user opens ``path`` (its disk text, or ``text`` unsaved); returns the URI."""
        uri = uri_of(path)
        self._tell([self.model.open(uri, text)])
        return uri

    def close(self, uri: str) -> None:
        """The user closes ``uri`` (unsaved changes dropped)."""
        del self.model.buffers[uri]
        self.documents.close(uri)

    def type(self, uri: str, start: int, end: int, text: str) -> None:
        """The user replaces ``[start, end)`` of the buffer with ``text``."""
        self._tell([self.model.type(uri, start, end, text)])

    def text(self, uri: str) -> str:
        """The editor's own buffer text."""
        return self.model.buffers[uri].text

    def flush(self) -> None:
        """Send the notifications held back by ``defer``."""
        pending, self.pending = self.pending, []
        self._tell(pending)

    async def apply_edit(self, params: JsonObject) -> ApplyOutcome:
        """Answer ``workspace/applyEdit`` like the modelled editor."""
        if self.before_apply is not None:
            await self.before_apply(params)
        if self.decline:
            self.model.received.append(params)
            return ApplyOutcome(applied=False)
        answer, notices = self.model.apply(params)
        if self.defer:
            self.pending.extend(notices)
        else:
            self._tell(notices)
        return ApplyOutcome(applied=answer["applied"], failure_reason=answer.get("failureReason"))

    async def save_documents(self, uris: Sequence[str]) -> tuple[str, ...]:
        """Save the loaded ones of ``uris``."""
        self.save_requests.append(list(uris))
        saved = []
        for uri in uris:
            if uri in self.model.buffers:
                self.model.save(uri)
                self.documents.saved(uri)
                saved.append(uri)
        return tuple(saved)

    def _tell(self, notices: list[Notice]) -> None:
        for notice in notices:
            document = notice.params["textDocument"]
            if notice.method == "textDocument/didOpen":
                self.documents.open(document["uri"], document["version"], document["text"])
            else:
                changes = [_change(change) for change in notice.params["contentChanges"]]
                self.documents.change(document["uri"], document["version"], changes)


def _change(change: Json) -> ContentChange:
    start, end = change["range"]["start"], change["range"]["end"]
    return ContentChange(
        range=(
            Position(line=start["line"], character=start["character"]),
            Position(line=end["line"], character=end["character"]),
        ),
        text=change["text"],
    )
