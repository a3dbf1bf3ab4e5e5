"""A model editor for tests: buffers, and workspace edits applied the way editors apply them.

Shared by the in-process ``ScriptedEditor`` and the pytest-lsp client of the end-to-end
tests. Position conversion is written independently of ``dsh_lsp.server.buffers.positions`` (a
character-by-character walk), so a bug there cannot hide behind the same bug here.

Behaviours (``EditorBehaviour``), each modelled on a real editor:

- ``check_versions`` (VS Code): a ``TextDocumentEdit`` whose version is not the buffer's is
  refused with ``applied: false`` and a reason;
- ``skip_stale`` (Neovim's built-in handler): the same edit is skipped silently and the
  answer is ``applied: true``;
- ``save_loaded``: a file loaded only to apply an edit is saved and unloaded afterwards (an
  editor with auto-save for refactorings); otherwise it stays loaded and unsaved;
- ``mirror_loaded``: a file loaded for an edit is announced with didOpen (VS Code does this
  for every document it loads when the language client's selector matches).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from pygls.uris import to_fs_path

# Any: LSP JSON payloads as decoded by the tests.
Json = Any

BOM = "\ufeff"
_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True, kw_only=True)
class EditorBehaviour:
    """How the model editor answers ``workspace/applyEdit`` (see the module docstring)."""

    encoding: str = "utf-16"
    check_versions: bool = True
    skip_stale: bool = False
    save_loaded: bool = False
    mirror_loaded: bool = False


@dataclass(slots=True)
class Buffer:
    """One loaded document."""

    uri: str
    text: str
    version: int
    mirrored: bool
    """The server was told about it (didOpen)."""
    bom: bool = False
    """The file had a byte-order mark, which a save writes back."""


@dataclass(slots=True)
class Notice:
    """A notification the editor owes the server: didOpen or didChange."""

    method: str
    params: Json


@dataclass(slots=True)
class EditorModel:
    """The buffers and the workspace-edit rules."""

    behaviour: EditorBehaviour
    buffers: dict[str, Buffer] = field(default_factory=dict)
    received: list[Json] = field(default_factory=list)
    """Every ``workspace/applyEdit`` params, in order."""

    def open(self, uri: str, text: str | None = None, *, version: int = 1) -> Notice:
        """The user opens ``uri`` (with ``text``, or the disk content): the didOpen owed."""
        if text is None:
            buffer = self._from_disk(uri, mirrored=True)
        else:
            buffer = Buffer(uri=uri, text=text, version=version, mirrored=True)
        self.buffers[uri] = buffer
        return _did_open(buffer)

    def type(self, uri: str, start: int, end: int, text: str) -> Notice:
        """The user replaces ``[start, end)`` of the buffer with ``text``: the didChange."""
        buffer = self.buffers[uri]
        change = {
            "range": {
                "start": position_of(buffer.text, start, self.behaviour.encoding),
                "end": position_of(buffer.text, end, self.behaviour.encoding),
            },
            "text": text,
        }
        buffer.text = buffer.text[:start] + text + buffer.text[end:]
        buffer.version += 1
        return _did_change(buffer, [change])

    def save(self, uri: str) -> None:
        """Write the buffer to its file (in place, byte-order mark restored)."""
        buffer = self.buffers[uri]
        path = _path(uri)
        with open(path, "wb") as handle:
            handle.write(((BOM if buffer.bom else "") + buffer.text).encode("utf-8"))

    def apply(self, params: Json) -> tuple[Json, list[Notice]]:
        """Apply ``workspace/applyEdit`` params: the answer and the notifications owed."""
        self.received.append(params)
        edit = params["edit"]
        notices: list[Notice] = []
        if "documentChanges" in edit:
            operations = edit["documentChanges"]
        else:
            operations = [
                {"textDocument": {"uri": uri, "version": None}, "edits": edits}
                for uri, edits in edit.get("changes", {}).items()
            ]
        loaded: list[str] = []
        for index, operation in enumerate(operations):
            if operation.get("kind") == "create":
                failure = self._create(operation)
            else:
                failure = self._edit(operation, notices, loaded)
            if failure is not None:
                return {"applied": False, "failureReason": failure, "failedChange": index}, notices
        if self.behaviour.save_loaded:
            for uri in loaded:
                self.save(uri)
                del self.buffers[uri]
        return {"applied": True}, notices

    def _create(self, operation: Json) -> str | None:
        path = _path(operation["uri"])
        options = operation.get("options") or {}
        if os.path.exists(path) and not options.get("overwrite"):
            return None if options.get("ignoreIfExists") else f"{path} already exists"
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb"):
            pass
        return None

    def _edit(self, operation: Json, notices: list[Notice], loaded: list[str]) -> str | None:
        uri = operation["textDocument"]["uri"]
        version = operation["textDocument"].get("version")
        buffer = self.buffers.get(uri)
        if buffer is None:
            buffer = self._from_disk(uri, mirrored=self.behaviour.mirror_loaded)
            self.buffers[uri] = buffer
            loaded.append(uri)
            if buffer.mirrored:
                notices.append(_did_open(buffer))
        if version is not None and version != buffer.version:
            if self.behaviour.skip_stale:
                return None
            if self.behaviour.check_versions:
                return f"Version {version} of {uri} does not match the document ({buffer.version})"
        new_text, changes = apply_edits(buffer.text, operation["edits"], self.behaviour.encoding)
        buffer.text = new_text
        buffer.version += 1
        if buffer.mirrored:
            notices.append(_did_change(buffer, changes))
        return None

    def _from_disk(self, uri: str, *, mirrored: bool) -> Buffer:
        with open(_path(uri), encoding="utf-8", newline="") as handle:
            text = handle.read()
        bom = text.startswith(BOM)
        return Buffer(
            uri=uri, text=text[1:] if bom else text, version=1, mirrored=mirrored, bom=bom
        )


def apply_edits(text: str, edits: list[Json], encoding: str) -> tuple[str, list[Json]]:
    """Apply LSP text edits (all relative to ``text``) like an editor: the new text, and the
    same edits as didChange content changes (last position first, so each stays valid)."""
    spans = []
    for edit in edits:
        start = offset_of(text, edit["range"]["start"], encoding)
        end = offset_of(text, edit["range"]["end"], encoding)
        spans.append((start, end, edit))
    spans.sort(key=lambda span: (span[0], span[1]), reverse=True)
    for start, end, edit in spans:
        text = text[:start] + edit["newText"] + text[end:]
    changes = [{"range": edit["range"], "text": edit["newText"]} for _, _, edit in spans]
    return text, changes


def _units(char: str, encoding: str) -> int:
    if encoding == "utf-32":
        return 1
    if encoding == "utf-16":
        return len(char.encode("utf-16-le", "surrogatepass")) // 2
    return len(char.encode("utf-8", "surrogatepass"))


def _lines(text: str) -> list[tuple[int, str]]:
    """(start offset, content) of every LSP line."""
    lines, start = [], 0
    for match in _BREAK.finditer(text):
        lines.append((start, text[start : match.start()]))
        start = match.end()
    lines.append((start, text[start:]))
    return lines


def offset_of(text: str, position: Json, encoding: str) -> int:
    """The offset of an LSP position (past-the-end columns and lines clamp)."""
    lines = _lines(text)
    line: int = position["line"]
    character: int = position["character"]
    if line >= len(lines):
        return len(text)
    start, content = lines[line]
    units = 0
    for index, char in enumerate(content):
        if units >= character:
            return start + index
        units += _units(char, encoding)
    return start + len(content)


def position_of(text: str, offset: int, encoding: str) -> Json:
    """The LSP position of an offset (which must not split a CRLF)."""
    for line, (start, content) in reversed(list(enumerate(_lines(text)))):
        if start <= offset:
            column = sum(_units(char, encoding) for char in content[: offset - start])
            return {"line": line, "character": column}
    raise AssertionError("unreachable: the first line starts at 0")


def _path(uri: str) -> str:
    path = to_fs_path(uri)
    assert path is not None, uri
    return path


def _did_open(buffer: Buffer) -> Notice:
    document = {"uri": buffer.uri, "languageId": "text", "version": buffer.version}
    return Notice("textDocument/didOpen", {"textDocument": {**document, "text": buffer.text}})


def _did_change(buffer: Buffer, changes: list[Json]) -> Notice:
    return Notice(
        "textDocument/didChange",
        {
            "textDocument": {"uri": buffer.uri, "version": buffer.version},
            "contentChanges": changes,
        },
    )
