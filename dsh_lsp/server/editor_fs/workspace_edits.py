"""Workspace edits: the ``workspace/applyEdit`` params for one tool call (server layer).

One tool call is one request, so it is one undo step in the editor, and its ``label`` is the
call's title. Text goes as a ``TextDocumentEdit`` carrying the document's version when the
client takes ``documentChanges`` (so the editor itself rejects an edit computed against an
older buffer), else as a plain ``changes`` map. A new file is a ``CreateFile`` (never
overwriting) followed by the insertion of its text, in the same request. When the user is to
confirm the edit (edit policy ``ask`` for a client without the dsh permission flow) and the
client supports change annotations, every edit references one annotation named after the
call with ``needsConfirmation`` (VS Code's refactor preview, Neovim's confirm) before
anything changes. Other edits carry no annotation: it would say nothing ``label`` does not,
and Neovim 0.12 announces every annotated edit in a message whose "Press ENTER" prompt
swallows the user's next keystroke.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from dsh_lsp.fs_tools import TextHunk
from dsh_lsp.llm import JsonObject, JsonValue

from .capabilities import EditCapabilities
from .text_edits import text_edits

ANNOTATION_ID: Final = "dsh"
"""The id of the one change annotation an edit carries."""


@dataclass(frozen=True, slots=True, kw_only=True)
class EditLabel:
    """How the editor should present one tool call's edit."""

    title: str
    """The undo-stack label: the tool call's title."""
    confirm: bool = False
    """Ask the user to confirm in a preview (edit policy ``ask``)."""


def annotation_for(capabilities: EditCapabilities, label: EditLabel) -> str | None:
    """The annotation id edits of this call reference: None unless the edit asks for a
    confirmation the client can show."""
    if label.confirm and capabilities.change_annotations and capabilities.document_changes:
        return ANNOTATION_ID
    return None


def labelled_edits(
    capabilities: EditCapabilities, label: EditLabel, text: str, hunks: Sequence[TextHunk]
) -> list[JsonValue]:
    """The ``TextEdit`` objects of ``hunks`` of ``text`` in the client's position encoding,
    annotated when ``label`` asks for a confirmation the client can show."""
    annotation = annotation_for(capabilities, label)
    return text_edits(text, hunks, capabilities.position_encoding, annotation=annotation)


def document_edit(
    capabilities: EditCapabilities,
    label: EditLabel,
    *,
    uri: str,
    version: int | None,
    edits: Sequence[JsonValue],
) -> JsonObject:
    """The params editing ``uri``; ``version`` None means "as the editor has it"."""
    if not capabilities.document_changes:
        return {"label": label.title, "edit": {"changes": {uri: list(edits)}}}
    change: JsonObject = {
        "textDocument": {"uri": uri, "version": version},
        "edits": list(edits),
    }
    return _params(capabilities, label, [change])


def create_file_edit(
    capabilities: EditCapabilities,
    label: EditLabel,
    *,
    uri: str,
    edits: Sequence[JsonValue],
) -> JsonObject:
    """The params creating ``uri`` (it must not exist) with ``edits`` inserting its text.

    Only for clients with ``create_files``."""
    create: dict[str, JsonValue] = {
        "kind": "create",
        "uri": uri,
        "options": {"overwrite": False, "ignoreIfExists": False},
    }
    annotation = annotation_for(capabilities, label)
    if annotation is not None:
        create["annotationId"] = annotation
    changes: list[JsonValue] = [create]
    if edits:
        changes.append({"textDocument": {"uri": uri, "version": None}, "edits": list(edits)})
    return _params(capabilities, label, changes)


def _params(
    capabilities: EditCapabilities, label: EditLabel, changes: list[JsonValue]
) -> JsonObject:
    edit: dict[str, JsonValue] = {"documentChanges": changes}
    annotation = annotation_for(capabilities, label)
    if annotation is not None:
        edit["changeAnnotations"] = {
            annotation: {
                "label": label.title,
                "needsConfirmation": label.confirm,
                "description": "An edit by the dsh agent",
            }
        }
    return {"label": label.title, "edit": edit}
