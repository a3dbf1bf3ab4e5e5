"""What the client can do with edits, and the ``workspace/applyEdit`` params built for it."""

from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types

from dsh_lsp.fs_tools import FsError
from dsh_lsp.llm import JsonObject, JsonValue
from dsh_lsp.server.buffers import OpenDocuments
from dsh_lsp.server.editor_fs.capabilities import EditCapabilities, edit_capabilities
from dsh_lsp.server.editor_fs.edit_delivery import Delivery, deliver
from dsh_lsp.server.editor_fs.editor_connection import ChannelEditor, apply_outcome
from dsh_lsp.server.editor_fs.workspace_edits import EditLabel, create_file_edit, document_edit
from dsh_lsp.server.wire import ClientFeatures, ClientRequestError, dict_params_converter
from tests.server.editor_model import Json
from tests.server.scripted_editor import VSCODE

LABEL = EditLabel(title="Edit src/app.py", confirm=True)
EDITS: list[JsonValue] = [
    {
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
        "newText": "x",
        "annotationId": "dsh",
    }
]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (
            "visual-studio-code",
            EditCapabilities(
                apply_edit=True, document_changes=True, create_files=True, change_annotations=True
            ),
        ),
        # Neovim advertises resource operations but not documentChanges: implied
        (
            "neovim@v0.11",
            EditCapabilities(apply_edit=True, document_changes=True, create_files=True),
        ),
        ("emacs", EditCapabilities(apply_edit=True, document_changes=True)),
    ],
)
def test_bundled_client_capabilities(spec: str, expected: EditCapabilities) -> None:
    assert edit_capabilities(pytest_lsp.client_capabilities(spec)) == expected


def test_the_negotiated_encoding_and_the_save_opt_in() -> None:
    capabilities = types.ClientCapabilities(
        experimental={"dsh": {"version": 1, "saveDocuments": True}}
    )
    found = edit_capabilities(capabilities, types.PositionEncodingKind.Utf8)
    assert found == EditCapabilities(save_documents=True, position_encoding="utf-8")
    assert not edit_capabilities(types.ClientCapabilities()).apply_edit


def test_a_document_edit_is_versioned_labelled_and_annotated() -> None:
    params: Json = document_edit(VSCODE, LABEL, uri="file:///a.py", version=7, edits=EDITS)
    assert params == {
        "label": "Edit src/app.py",
        "edit": {
            "documentChanges": [
                {"textDocument": {"uri": "file:///a.py", "version": 7}, "edits": EDITS}
            ],
            "changeAnnotations": {
                "dsh": {
                    "label": "Edit src/app.py",
                    "needsConfirmation": True,
                    "description": "An edit by the dsh agent",
                }
            },
        },
    }
    typed = dict_params_converter().structure(params, types.ApplyWorkspaceEditParams)
    assert typed.edit.document_changes is not None
    (change,) = typed.edit.document_changes
    assert isinstance(change, types.TextDocumentEdit)


def test_without_document_changes_edits_go_as_a_changes_map() -> None:
    plain = EditCapabilities(apply_edit=True)
    params: Json = document_edit(plain, LABEL, uri="file:///a.py", version=7, edits=EDITS)
    assert params == {"label": "Edit src/app.py", "edit": {"changes": {"file:///a.py": EDITS}}}


def test_a_new_file_is_created_then_filled_in_one_request() -> None:
    params: Json = create_file_edit(VSCODE, LABEL, uri="file:///n.py", edits=EDITS)
    create, fill = params["edit"]["documentChanges"]
    assert create == {
        "kind": "create",
        "uri": "file:///n.py",
        "options": {"overwrite": False, "ignoreIfExists": False},
        "annotationId": "dsh",
    }
    assert fill == {"textDocument": {"uri": "file:///n.py", "version": None}, "edits": EDITS}
    typed = dict_params_converter().structure(params, types.ApplyWorkspaceEditParams)
    assert typed.edit.document_changes is not None
    assert isinstance(typed.edit.document_changes[0], types.CreateFile)
    empty: Json = create_file_edit(VSCODE, LABEL, uri="file:///n.py", edits=[])
    assert len(empty["edit"]["documentChanges"]) == 1


@pytest.mark.parametrize(
    ("answer", "applied", "reason"),
    [
        ({"applied": True}, True, None),
        ({"applied": False, "failureReason": "Version mismatch"}, False, "Version mismatch"),
        ({"applied": False, "failureReason": ""}, False, None),
        (None, False, "the editor sent no result"),
        ({"applied": "yes"}, False, None),
    ],
)
def test_apply_answers_are_read_defensively(
    answer: object, applied: bool, reason: str | None
) -> None:
    outcome = apply_outcome(answer)  # type: ignore[arg-type]  # untrusted JSON on purpose
    assert (outcome.applied, outcome.failure_reason) == (applied, reason)


class _ErrorChannel:
    """A channel whose client refuses every request with an error (eglot refuses a stale
    versioned edit with ``jsonrpc-error``, not with ``applied: false``)."""

    features = ClientFeatures()

    def notify(self, method: str, params: JsonObject) -> None:
        del method, params

    async def request(self, method: str, params: JsonObject) -> JsonValue:
        del params
        raise ClientRequestError(
            f"the client answered {method} with error -32603: "
            "Edits on `notes.txt' require version 3, you have 4"
        )


async def test_a_stale_edit_refused_with_an_error_reads_like_any_stale_refusal() -> None:
    documents = OpenDocuments()
    documents.open("file:///w/notes.txt", 4, "alpha\n")
    editor = ChannelEditor(_ErrorChannel(), documents, VSCODE)
    delivery = Delivery(
        uri="file:///w/notes.txt",
        params={"label": "Edit notes.txt", "edit": {}},
        expected="omega\n",
        version=3,
        confirm=False,
        display_path="notes.txt",
    )
    with pytest.raises(FsError) as caught:
        await deliver(editor, delivery, settle=0.01)
    assert caught.value.code == "FS_STALE_VERSION"
    assert "Read it again, then redo the edit" in str(caught.value)
    assert "require version 3" in str(caught.value)
