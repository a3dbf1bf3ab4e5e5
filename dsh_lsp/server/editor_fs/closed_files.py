"""Closed files: writes and edits of files the editor does not mirror (server layer).

The editor-backed provider's second half (``file_system`` calls it inside the target's
critical section). The text an edit is computed against is what the editor will load: the
disk text without its byte-order mark, or the overlay of an earlier agent edit the editor
still holds unsaved. The edit goes out unversioned (the editor has no version for a file it
has not loaded). Once the editor answers:

- it mirrored the document (it opened it and sent didOpen/didChange): the edit is verified
  like any open document's (``edit_delivery``);
- the disk now holds the expected text (the editor saved it): the disk version;
- otherwise the editor holds the text unsaved: an overlay remembers it until the disk
  changes or the editor opens the document.

A new file is ``CreateFile`` plus its text when the client performs resource operations, and a
plain disk write through the local provider when it does not (nothing in the editor could
hold it). A file whose bytes are not UTF-8 text cannot live in an editor buffer; replacing it
is left to the local provider too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass
from functools import partial

import anyio
from pygls.uris import from_fs_path

from dsh_lsp.fs_tools import (
    ExpectVersion,
    FsEditOutcome,
    FsError,
    FsInfo,
    FsTarget,
    FsWriteOutcome,
    LiteralEdit,
    TextHunk,
    WriteGuard,
    apply_hunks,
)
from dsh_lsp.fs_tools.local import LocalFileSystem
from dsh_lsp.fs_tools.provider_kit import (
    check_expected,
    check_guard,
    normalize_eol,
    strip_bom,
    too_large,
    vanished,
)
from dsh_lsp.llm import JsonObject
from dsh_lsp.server.buffers import DocumentEvent

from .buffer_view import BufferView
from .disk_files import DiskFile, editor_text, load
from .disk_policy import DiskSync
from .edit_delivery import Delivery, deliver
from .editor_connection import EditorConnection
from .overlays import Overlay, Overlays
from .workspace_edits import EditLabel, create_file_edit, document_edit, labelled_edits


@dataclass(frozen=True, slots=True, eq=False)
class ClosedFiles:
    """See the module docstring; owns the overlays, shares ``sync`` with the provider."""

    editor: EditorConnection
    disk: LocalFileSystem
    overlays: Overlays
    sync: DiskSync
    _: KW_ONLY
    settle: float
    """Seconds after which an applied edit's answer is trusted (``edit_delivery``)."""
    max_write_bytes: int

    def on_document_event(self, event: DocumentEvent) -> None:
        """A document the editor opens is mirrored from now on: its overlay goes."""
        if event.kind == "opened" and event.key is not None:
            self.overlays.drop(event.key)

    def overlay(self, key: str, info: FsInfo | None) -> Overlay | None:
        """The overlay of ``key`` if it still shadows the disk state ``info``."""
        version = info.version if info is not None and info.type == "file" else None
        return self.overlays.current(key, version)

    async def current_overlay(self, target: FsTarget) -> Overlay | None:
        """The valid overlay of ``target``, if any (a disk stat only when one exists)."""
        if target.key not in self.overlays:
            return None
        return self.overlay(target.key, await self.disk.stat(target))

    async def write(
        self,
        target: FsTarget,
        real: str,
        content: str,
        guard: WriteGuard | None,
        label: EditLabel,
    ) -> FsWriteOutcome:
        """``write_text`` of a file the editor does not mirror; see ``FileSystem``."""
        shown = target.display_path
        size = len(content.encode("utf-8", "surrogatepass"))
        if size > self.max_write_bytes:
            raise too_large(shown, size, self.max_write_bytes, "writing")
        disk = await self._load(real, shown)
        after = normalize_eol(strip_bom(content)[1])
        if disk.version is None:
            check_guard(guard, None, shown)
            if not self.editor.capabilities.create_files:
                return await self.disk.write_text(target, content, guard=guard)
            version = await self._create(target, real, content, label)
            return FsWriteOutcome(operation="create", version=version, before=None, after=after)
        overlay = self.overlays.current(real, disk.version)
        current = disk.version if overlay is None else overlay.token
        check_guard(guard, current, shown)
        try:
            base = self._base(disk, overlay, shown)
        except FsError:
            return await self.disk.write_text(target, content, guard=guard)
        view = BufferView.of(base)
        diff, hunks, wanted = view.write_change(content)
        version = await self._send(target, real, current, base, hunks, wanted, label)
        return FsWriteOutcome(
            operation="update", version=version, before=view.text, after=after, diff=diff
        )

    async def edit(
        self,
        target: FsTarget,
        real: str,
        edits: Sequence[LiteralEdit],
        expected: ExpectVersion | None,
        label: EditLabel,
    ) -> FsEditOutcome:
        """``edit_text`` of a file the editor does not mirror; see ``FileSystem``."""
        shown = target.display_path
        disk = await self._load(real, shown)
        if disk.version is None:
            if expected is not None:
                raise vanished(shown)
            raise FsError("FS_NOT_FOUND", f"{shown} does not exist")
        overlay = self.overlays.current(real, disk.version)
        current = disk.version if overlay is None else overlay.token
        check_expected(expected, current, shown)
        base = self._base(disk, overlay, shown)
        edit = BufferView.of(base).edited(edits, shown)
        wanted = apply_hunks(base, edit.hunks)
        return edit.outcome(
            await self._send(target, real, current, base, edit.hunks, wanted, label)
        )

    @staticmethod
    def _base(disk: DiskFile, overlay: Overlay | None, shown: str) -> str:
        """The text the editor holds or will load. Raises FsError ``FS_NOT_TEXT``."""
        if overlay is not None:
            return overlay.text
        assert disk.data is not None  # a file exists, so load() read it
        return editor_text(disk.data, shown)

    async def _load(self, real: str, shown: str) -> DiskFile:
        return await anyio.to_thread.run_sync(
            partial(load, real, shown, max_bytes=self.max_write_bytes)
        )

    async def _send(
        self,
        target: FsTarget,
        real: str,
        current: str,
        base: str,
        hunks: Sequence[TextHunk],
        expected: str,
        label: EditLabel,
    ) -> str:
        """Deliver ``hunks`` of ``base``; the version token of the result (``current`` when
        there is nothing to change)."""
        if not hunks:
            return current
        capabilities = self.editor.capabilities
        edits = labelled_edits(capabilities, label, base, hunks)
        uri = _uri(real, target.display_path)
        params = document_edit(capabilities, label, uri=uri, version=None, edits=edits)
        return await self._deliver(target, real, uri, params, expected, label)

    async def _create(self, target: FsTarget, real: str, content: str, label: EditLabel) -> str:
        capabilities = self.editor.capabilities
        insert = [TextHunk(start=0, end=0, new_text=content)] if content else []
        edits = labelled_edits(capabilities, label, "", insert)
        uri = _uri(real, target.display_path)
        params = create_file_edit(capabilities, label, uri=uri, edits=edits)
        return await self._deliver(target, real, uri, params, content, label)

    async def _deliver(
        self,
        target: FsTarget,
        real: str,
        uri: str,
        params: JsonObject,
        expected: str,
        label: EditLabel,
    ) -> str:
        shown = target.display_path
        delivery = Delivery(
            uri=uri,
            params=params,
            expected=expected,
            version=None,
            confirm=label.confirm,
            display_path=shown,
        )
        token = await deliver(self.editor, delivery, settle=self.settle)
        self.sync.edited(uri)
        if token is not None:
            self.overlays.drop(real)
            return token
        try:
            now = await self._load(real, shown)
        except FsError:
            now = DiskFile(version=None)
        if now.version is not None and now.data is not None and _text(now.data) == expected:
            self.overlays.drop(real)
            return now.version
        return self.overlays.put(real, expected, now.version).token


def _uri(real: str, shown: str) -> str:
    """The URI of the checked real path (never the path as the model spelled it: a symlink
    along it could be swapped before the editor resolves it)."""
    uri: str | None = from_fs_path(real)  # pygls leaves it untyped
    if uri is None:
        raise FsError("FS_INVALID_PATH", f"{shown} has no file URI")
    return uri


def _text(data: bytes) -> str | None:
    try:
        return editor_text(data, "")
    except FsError:
        return None
