"""EditorFileSystem: the ``FileSystem`` seam through the editor (server layer).

Replaces the local provider when the client answers ``workspace/applyEdit``; the file tools
and the policy run unchanged on top of it.

Reads: a document open in the editor is read from the mirror (unsaved changes included;
version ``buffer:<generation>:<version>``); a file the agent edited through the editor but
the editor does not mirror is read from its overlay (``editor:<n>``, see ``overlays``); any
other file comes from disk through the local provider (its versions). Listings and
resolution are the local provider's.

Mutations: every write and edit is one ``workspace/applyEdit`` carrying minimal hunks
(one ``fs_tools.diff_texts`` per change, whose diff the outcome hands back to the tool, so
an edit is diffed once) in the document's own line endings and the negotiated position encoding,
labelled with the tool call's title. An open document's edit is versioned and verified
(``edit_delivery``); a closed file's edit goes to the editor unversioned (the editor loads the
file and applies it; see ``closed_files``); a new file is a ``CreateFile`` plus its text when
the client performs resource operations, else it is written to disk directly. Each target
is one critical section: the version check, the computation and the round trip to the
editor happen inside it, so concurrent edits of one file serialize.

Disk policy: edits stay in the editor's buffers until saved (``disk_sync``, see
``disk_policy``); the agent always reads what the editor holds.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from typing import Final

import anyio

from dsh_lsp.fs_tools import (
    ExpectVersion,
    FsDirEntry,
    FsEditOutcome,
    FsInfo,
    FsTarget,
    FsWriteOutcome,
    LiteralEdit,
    ReplaceIfVersion,
    TextHunk,
    WriteGuard,
    apply_hunks,
    apply_literal_edits,
)
from dsh_lsp.fs_tools.local import LocalFileSystem
from dsh_lsp.fs_tools.provider_kit import (
    SNIFF_BYTES,
    KeyedLocks,
    check_expected,
    check_guard,
    normalize_eol,
    not_text,
    strip_bom,
)
from dsh_lsp.server.buffers import DocumentEvent, OpenDocument

from .buffer_view import BufferView
from .closed_files import ClosedFiles
from .disk_policy import DiskSync
from .edit_delivery import SETTLE_SECONDS, Delivery, deliver
from .edit_events import EditorEdit
from .edit_labels import current_label
from .editor_connection import EditorConnection
from .overlays import Overlays
from .text_edits import text_edits
from .workspace_edits import EditLabel, annotation_for, document_edit

STREAM_CHARS: Final = 1 << 20
"""Characters per chunk when streaming an editor-held text."""

LabelSource = Callable[[str], EditLabel]
"""The label of the running tool call, given a fallback title."""

EditAround = Callable[[EditorEdit, Callable[[], Awaitable[str]]], Awaitable[str]]
"""Runs an open document's edit delivery (the second argument) around listeners (the
``editor/edit`` waterfall); returns the version token."""


async def _just_deliver(edit: EditorEdit, deliver_edit: Callable[[], Awaitable[str]]) -> str:
    return await deliver_edit()


class EditorFileSystem:
    """The editor-backed provider of ``FS``; see the module docstring. Owns no resources."""

    __slots__ = (
        "_around",
        "_closed",
        "_disk",
        "_editor",
        "_labels",
        "_locks",
        "_settle",
        "disk_sync",
    )

    def __init__(
        self,
        editor: EditorConnection,
        disk: LocalFileSystem,
        *,
        labels: LabelSource = current_label,
        settle: float = SETTLE_SECONDS,
        max_write_bytes: int = 32 << 20,
        around: EditAround = _just_deliver,
    ) -> None:
        self._editor = editor
        self._around = around
        self._disk = disk
        self._labels = labels
        self._settle = settle
        self._locks = KeyedLocks()
        self.disk_sync = DiskSync(editor)
        """The agent edits not saved yet (see ``disk_policy``)."""
        self._closed = ClosedFiles(
            editor,
            disk,
            Overlays(),
            self.disk_sync,
            settle=settle,
            max_write_bytes=max_write_bytes,
        )

    def on_document_event(self, event: DocumentEvent) -> None:
        """Subscribe this to the mirror (``OpenDocuments.subscribe``): overlays and pending
        saves follow what the editor opens, saves and closes."""
        self._closed.on_document_event(event)
        self.disk_sync.on_document_event(event)

    async def resolve(self, path: str, *, cwd: str | None = None) -> FsTarget:
        """See ``FileSystem.resolve``."""
        return await self._disk.resolve(path, cwd=cwd)

    async def stat(self, target: FsTarget) -> FsInfo | None:
        """See ``FileSystem.stat``."""
        document = self._editor.documents.by_key(target.key)
        if document is not None:
            return _held_info(*self._editor_state(document))
        info = await self._disk.stat(target)
        overlay = self._closed.overlay(target.key, info)
        return info if overlay is None else _held_info(overlay.text, overlay.token)

    async def read_text(self, target: FsTarget) -> str:
        """See ``FileSystem.read_text``."""
        held = await self._held_text(target)
        return await self._disk.read_text(target) if held is None else held

    async def stream_text(self, target: FsTarget) -> AsyncGenerator[str, None]:
        """See ``FileSystem.stream_text``."""
        held = await self._held_text(target)
        if held is None:
            async for chunk in self._disk.stream_text(target):
                yield chunk
            return
        for start in range(0, len(held), STREAM_CHARS):
            yield held[start : start + STREAM_CHARS]

    async def list_dir(self, target: FsTarget) -> tuple[FsDirEntry, ...]:
        """See ``FileSystem.list_dir``."""
        return await self._disk.list_dir(target)

    async def write_text(
        self, target: FsTarget, content: str, *, guard: WriteGuard | None = None
    ) -> FsWriteOutcome:
        """See ``FileSystem.write_text``."""
        async with self._locks.hold(target.key):
            real, document, label = await self._enter(target, "Write")
            if document is None:
                return await self._closed.write(target, real, content, guard, label)
            raw, _ = self._editor_state(document)
            documents = self._editor.documents
            claimed = guard.version if isinstance(guard, ReplaceIfVersion) else None
            check_guard(guard, documents.current_token(document, claimed), target.display_path)
            view = BufferView.of(raw)
            diff, hunks, wanted = view.write_change(content)
            version = await self._send_open(document, target, hunks, wanted, label, base=raw)
            return FsWriteOutcome(
                operation="update",
                version=version,
                before=view.text,
                after=normalize_eol(strip_bom(content)[1]),
                diff=diff,
            )

    async def edit_text(
        self,
        target: FsTarget,
        edits: Sequence[LiteralEdit],
        *,
        expected: ExpectVersion | None = None,
    ) -> FsEditOutcome:
        """See ``FileSystem.edit_text``."""
        edits = tuple(edits)
        async with self._locks.hold(target.key):
            real, document, label = await self._enter(target, "Edit")
            if document is None:
                return await self._closed.edit(target, real, edits, expected, label)
            shown = target.display_path
            raw, _ = self._editor_state(document)
            claimed = None if expected is None else expected.version
            check_expected(expected, self._editor.documents.current_token(document, claimed), shown)
            view = BufferView.of(raw)
            if "\0" in view.text:
                raise not_text(shown, "contains NUL characters")
            applied = apply_literal_edits(view.text, edits, display_path=shown)
            diff, hunks = view.change_to(applied.text)
            version = await self._send_open(
                document, target, hunks, apply_hunks(raw, hunks), label, base=raw
            )
            return FsEditOutcome(
                version=version,
                before=view.text,
                after=applied.text,
                replacements=applied.replacements,
                diff=diff,
            )

    async def _enter(
        self, target: FsTarget, verb: str
    ) -> tuple[str, OpenDocument | None, EditLabel]:
        """Inside the critical section: the confined real path (raises FsError
        ``FS_OUTSIDE_WORKSPACE`` / ``FS_PROTECTED_PATH``), the open document, the label."""
        real = await anyio.to_thread.run_sync(self._disk.paths.check_writable, target)
        label = self._labels(f"{verb} {target.display_path}")
        return real, self._editor.documents.by_key(real), label

    async def _send_open(
        self,
        document: OpenDocument,
        target: FsTarget,
        hunks: Sequence[TextHunk],
        expected: str,
        label: EditLabel,
        *,
        base: str,
    ) -> str:
        """Deliver ``hunks`` of ``base``, the text an open document holds; the version token
        of the result. While the editor's didChange of an earlier edit is late, ``base`` is
        that edit's text and the new edit goes unversioned (the editor's version is not
        known yet)."""
        documents = self._editor.documents
        if not hunks:
            return documents.current_token(document)
        ahead = documents.expected(document.uri) is not None
        capabilities = self._editor.capabilities
        edits = text_edits(
            base,
            hunks,
            capabilities.position_encoding,
            annotation=annotation_for(capabilities, label),
        )
        version = None if ahead else document.version
        params = document_edit(capabilities, label, uri=document.uri, version=version, edits=edits)
        delivery = Delivery(
            uri=document.uri,
            params=params,
            expected=expected,
            version=version,
            confirm=label.confirm,
            display_path=target.display_path,
        )

        async def send() -> str:
            token = await deliver(self._editor, delivery, settle=self._settle)
            self.disk_sync.edited(document.uri)
            return token if token is not None else documents.current_token(document)

        edit = EditorEdit(
            uri=document.uri,
            display_path=target.display_path,
            before=base,
            after=expected,
            hunks=tuple(hunks),
        )
        return await self._around(edit, send)

    def _editor_state(self, document: OpenDocument) -> tuple[str, str]:
        """The text ``document`` holds in the editor and its token: an applied edit whose
        didChange is late counts (``OpenDocuments.expect``)."""
        ahead = self._editor.documents.expected(document.uri)
        return ahead if ahead is not None else (document.text(), document.token)

    async def _held_text(self, target: FsTarget) -> str | None:
        """The model's view of the text the editor holds for ``target``, or None (disk)."""
        document = self._editor.documents.by_key(target.key)
        if document is not None:
            text = self._editor_state(document)[0]
        else:
            overlay = await self._closed.current_overlay(target)
            if overlay is None:
                return None
            text = overlay.text
        if "\0" in text[:SNIFF_BYTES]:
            raise not_text(target.display_path, "looks binary (it contains NUL characters)")
        return strip_bom(text)[1]


def _held_info(text: str, token: str) -> FsInfo:
    return FsInfo(type="file", version=token, size=len(text.encode("utf-8", "surrogatepass")))
