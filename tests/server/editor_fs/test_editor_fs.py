"""EditorFileSystem with documents open in a scripted editor: buffer reads, versioned minimal
edits, verification, concurrent typing, position encodings, line endings, new files and the
overlay of edits the editor holds unsaved."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import anyio
import pytest
from pygls.uris import from_fs_path

from dsh_lsp.fs_tools import (
    CreateIfAbsent,
    ExpectVersion,
    FsError,
    FsInfo,
    FsTarget,
    LiteralEdit,
)
from dsh_lsp.fs_tools.local import LocalFileSystem, WorkspacePaths
from dsh_lsp.server.editor_fs.capabilities import EditCapabilities
from dsh_lsp.server.editor_fs.file_system import EditorFileSystem
from dsh_lsp.server.editor_fs.workspace_edits import EditLabel
from tests.server.editor_model import EditorBehaviour, Json
from tests.server.scripted_editor import NEOVIM, VSCODE, ScriptedEditor

EMOJI = "\U0001f600"


def _provider(
    tmp_path: Path,
    capabilities: EditCapabilities = VSCODE,
    *,
    settle: float = 2.0,
    confirm: bool = False,
    **behaviour: bool,
) -> tuple[EditorFileSystem, ScriptedEditor]:
    editor = ScriptedEditor(
        capabilities, EditorBehaviour(encoding=capabilities.position_encoding, **behaviour)
    )
    disk = LocalFileSystem(WorkspacePaths([str(tmp_path)]))

    def labels(fallback: str) -> EditLabel:
        return EditLabel(title=f"tool: {fallback}", confirm=confirm)

    fs = EditorFileSystem(editor, disk, labels=labels, settle=settle)
    editor.documents.subscribe(fs.on_document_event)
    return fs, editor


async def _info(fs: EditorFileSystem, target: FsTarget) -> FsInfo:
    info = await fs.stat(target)
    assert info is not None, f"{target.display_path} should exist"
    return info


async def _deferred(
    tmp_path: Path, text: str
) -> tuple[EditorFileSystem, ScriptedEditor, str, FsTarget]:
    """``a.txt`` open in an editor that answers first and sends its didChange on ``flush``."""
    (tmp_path / "a.txt").write_text(text)
    fs, editor = _provider(tmp_path)
    uri = editor.open(tmp_path / "a.txt")
    editor.defer = True
    return fs, editor, uri, await fs.resolve("a.txt")


def _edit(old: str, new: str, *, all: bool = False) -> list[LiteralEdit]:
    return [LiteralEdit(old_string=old, new_string=new, replace_all=all)]


async def test_reads_see_the_unsaved_buffer(tmp_path: Path) -> None:
    path = tmp_path / "app.py"
    path.write_text("x = 1\n")
    fs, editor = _provider(tmp_path)
    target = await fs.resolve("app.py")
    disk_version = (await _info(fs, target)).version
    editor.open(path, "x = 2  # unsaved\n")
    info = await fs.stat(target)
    assert info is not None
    assert info.version.startswith("buffer:")
    assert info.version != disk_version
    assert info.size == len(b"x = 2  # unsaved\n")
    assert await fs.read_text(target) == "x = 2  # unsaved\n"
    assert "".join([chunk async for chunk in fs.stream_text(target)]) == "x = 2  # unsaved\n"


async def test_an_edit_is_one_versioned_minimal_apply_edit(tmp_path: Path) -> None:
    path = tmp_path / "app.py"
    path.write_text("def f():\n    return 1\n")
    fs, editor = _provider(tmp_path)
    uri = editor.open(path, "def f():\n    return 1\n# unsaved note\n")
    target = await fs.resolve("app.py")
    seen = (await _info(fs, target)).version
    outcome = await fs.edit_text(
        target, _edit("return 1", "return 2"), expected=ExpectVersion(version=seen)
    )
    (params,) = editor.model.received
    assert params["label"] == "tool: Edit " + str(path)
    (change,) = params["edit"]["documentChanges"]
    assert change["textDocument"] == {"uri": uri, "version": 1}
    assert change["edits"] == [
        {
            "range": {"start": {"line": 1, "character": 11}, "end": {"line": 1, "character": 12}},
            "newText": "2",
        }
    ]
    assert "changeAnnotations" not in params["edit"], "annotated only to ask for a confirmation"
    assert editor.text(uri) == "def f():\n    return 2\n# unsaved note\n"
    assert outcome.after == editor.text(uri)
    assert outcome.version == (await _info(fs, target)).version
    assert path.read_text() == "def f():\n    return 1\n", "the disk waits for a save"
    again = await fs.edit_text(
        target, _edit("# unsaved", "# saved"), expected=ExpectVersion(version=outcome.version)
    )
    assert again.after.endswith("# saved note\n")


async def test_the_user_typing_first_makes_the_edit_stale_and_keeps_their_text(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.txt"
    path.write_text("alpha\nbeta\n")
    fs, editor = _provider(tmp_path)
    uri = editor.open(path)

    async def user_types(params: Json) -> None:
        editor.type(uri, 0, 0, "typed ")

    editor.before_apply = user_types
    target = await fs.resolve("a.txt")
    with pytest.raises(FsError) as caught:
        await fs.edit_text(target, _edit("beta", "gamma"))
    assert caught.value.code == "FS_STALE_VERSION"
    assert "read it again" in str(caught.value).lower()
    assert editor.text(uri) == "typed alpha\nbeta\n"
    assert await fs.read_text(target) == "typed alpha\nbeta\n"


async def test_a_silently_skipped_edit_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("alpha\nbeta\n")
    plain_neovim = replace(NEOVIM, skips_stale_silently=True)
    fs, editor = _provider(
        tmp_path, plain_neovim, settle=0.05, skip_stale=True, check_versions=False
    )
    uri = editor.open(path)

    async def user_types(params: Json) -> None:
        editor.type(uri, 0, 0, "typed ")

    editor.before_apply = user_types
    with pytest.raises(FsError) as caught:
        await fs.edit_text(await fs.resolve("a.txt"), _edit("beta", "gamma"))
    assert caught.value.code == "FS_STALE_VERSION"
    assert "skipped" in str(caught.value)
    assert editor.text(uri) == "typed alpha\nbeta\n"


async def test_a_did_change_after_the_answer_still_verifies(tmp_path: Path) -> None:
    fs, editor, _, target = await _deferred(tmp_path, "alpha\n")
    async with anyio.create_task_group() as group:
        group.start_soon(fs.edit_text, target, _edit("alpha", "omega"))
        await anyio.wait_all_tasks_blocked()
        assert editor.pending, "the editor answered and holds its didChange back"
        editor.flush()
    assert await fs.read_text(target) == "omega\n"


async def test_an_applied_edit_whose_did_change_is_late_is_trusted(tmp_path: Path) -> None:
    """eglot answers ``applied: true`` and sends its didChange from an idle timer, possibly
    long after: the edit succeeds, reads see its text, and the late didChange confirms the
    version the model holds, so its next edit is not refused."""
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    fs, editor = _provider(tmp_path, settle=0.01)
    uri = editor.open(tmp_path / "a.txt")
    target = await fs.resolve("a.txt")
    editor.defer = True
    outcome = await fs.edit_text(target, _edit("alpha", "omega"))
    assert editor.pending, "the didChange is still held back"
    assert outcome.after == "omega\nbeta\n"
    assert await fs.read_text(target) == "omega\nbeta\n"
    assert (await _info(fs, target)).version == outcome.version
    editor.flush()
    editor.defer = False
    assert editor.text(uri) == "omega\nbeta\n"
    again = await fs.edit_text(
        target, _edit("beta", "gamma"), expected=ExpectVersion(version=outcome.version)
    )
    assert again.after == "omega\ngamma\n"
    assert editor.text(uri) == "omega\ngamma\n"


async def test_a_second_edit_before_the_late_did_change_builds_on_the_first(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    fs, editor = _provider(tmp_path, settle=0.01, check_versions=False)
    uri = editor.open(tmp_path / "a.txt")
    target = await fs.resolve("a.txt")
    editor.defer = True
    first = await fs.edit_text(target, _edit("alpha", "omega"))
    second = await fs.edit_text(
        target, _edit("beta", "gamma"), expected=ExpectVersion(version=first.version)
    )
    assert second.after == "omega\ngamma\n"
    last = editor.model.received[-1]["edit"]["documentChanges"][0]
    assert last["textDocument"]["version"] is None, "the editor's version is not known yet"
    editor.flush()
    assert editor.text(uri) == "omega\ngamma\n"
    assert await fs.read_text(target) == "omega\ngamma\n"


async def test_typing_right_after_the_edit_landed_forces_a_reread(tmp_path: Path) -> None:
    fs, editor, uri, target = await _deferred(tmp_path, "alpha\n")
    outcome = None

    async def edit() -> None:
        nonlocal outcome
        outcome = await fs.edit_text(target, _edit("alpha", "omega"))

    async with anyio.create_task_group() as group:
        group.start_soon(edit)
        await anyio.wait_all_tasks_blocked()
        (notice,) = editor.pending
        editor.pending.clear()
        typed = editor.model.type(uri, 0, 0, "!")
        notice.params["contentChanges"] += typed.params["contentChanges"]
        notice.params["textDocument"]["version"] = typed.params["textDocument"]["version"]
        editor.pending.append(notice)
        editor.flush()
    assert outcome is not None
    assert await fs.read_text(target) == "!omega\n"
    with pytest.raises(FsError) as caught:
        await fs.edit_text(
            target, _edit("omega", "x"), expected=ExpectVersion(version=outcome.version)
        )
    assert caught.value.code == "FS_STALE_VERSION"


@pytest.mark.parametrize(("capabilities", "column"), [(VSCODE, 11), (NEOVIM, 13)])
async def test_positions_use_the_negotiated_encoding(
    tmp_path: Path, capabilities: EditCapabilities, column: int
) -> None:
    path = tmp_path / "e.txt"
    path.write_text(f"s = '{EMOJI}' + x\n")
    fs, editor = _provider(tmp_path, capabilities)
    uri = editor.open(path)
    await fs.edit_text(await fs.resolve("e.txt"), _edit("' + x", "' + y"))
    (params,) = editor.model.received
    (edit,) = params["edit"]["documentChanges"][0]["edits"]
    assert edit["range"]["start"] == {"line": 0, "character": column}  # code points: 10
    assert editor.text(uri) == f"s = '{EMOJI}' + y\n"


async def test_crlf_buffers_stay_crlf(tmp_path: Path) -> None:
    path = tmp_path / "w.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    fs, editor = _provider(tmp_path)
    uri = editor.open(path)
    target = await fs.resolve("w.txt")
    assert await fs.read_text(target) == "one\r\ntwo\r\nthree\r\n"
    outcome = await fs.edit_text(target, _edit("two\nthree", "2\n2.5\n3"))
    assert outcome.before == "one\ntwo\nthree\n"
    assert outcome.after == "one\n2\n2.5\n3\n"
    assert editor.text(uri) == "one\r\n2\r\n2.5\r\n3\r\n"
    await fs.write_text(target, "a\nb\n")
    assert editor.text(uri) == "a\r\nb\r\n"


async def test_a_one_line_edit_of_a_huge_buffer_sends_a_tiny_payload(tmp_path: Path) -> None:
    path = tmp_path / "big.py"
    text = "".join(f"value_{i} = {i}\n" for i in range(100_000))
    path.write_text(text)
    fs, editor = _provider(tmp_path)
    uri = editor.open(path)
    await fs.edit_text(
        await fs.resolve("big.py"), _edit("value_77777 = 77777\n", "value_77777 = 0\n")
    )
    (params,) = editor.model.received
    (edit,) = params["edit"]["documentChanges"][0]["edits"]
    assert edit["newText"] == "0"
    assert edit["range"]["start"] == {"line": 77777, "character": 14}
    assert len(json.dumps(edit)) < 160
    assert len(json.dumps(params)) < 1024, "label, URI and annotation included"
    assert editor.text(uri) == text.replace("value_77777 = 77777\n", "value_77777 = 0\n")


async def test_multi_edits_are_one_request(tmp_path: Path) -> None:
    path = tmp_path / "m.txt"
    path.write_text("a = 1\n" + "filler\n" * 5000 + "b = 2\n")
    fs, editor = _provider(tmp_path)
    uri = editor.open(path)
    edits = [
        LiteralEdit(old_string="a = 1", new_string="a = 10"),
        LiteralEdit(old_string="b = 2", new_string="b = 20"),
    ]
    outcome = await fs.edit_text(await fs.resolve("m.txt"), edits)
    assert outcome.replacements == (1, 1)
    (params,) = editor.model.received
    assert len(params["edit"]["documentChanges"][0]["edits"]) == 2
    assert editor.text(uri).startswith("a = 10\n")
    assert editor.text(uri).endswith("b = 20\n")


async def test_refusals_become_errors_the_model_can_read(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_text("x\n")
    fs, editor = _provider(tmp_path, confirm=True)
    editor.open(path)
    target = await fs.resolve("r.txt")

    editor.decline = True
    with pytest.raises(FsError) as caught:
        await fs.edit_text(target, _edit("x", "y"))
    assert caught.value.code == "FS_PERMISSION_DENIED"
    assert editor.model.received[0]["edit"]["changeAnnotations"]["dsh"]["needsConfirmation"]
    fs, editor = _provider(tmp_path)
    editor.open(path)
    editor.decline = True
    with pytest.raises(FsError) as caught:
        await fs.edit_text(await fs.resolve("r.txt"), _edit("x", "y"))
    assert caught.value.code == "FS_IO_ERROR"
    assert await fs.read_text(target) == "x\n"


async def test_closed_files_edited_through_the_editor_are_read_back_until_saved(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.txt"
    path.write_text("closed\n")
    fs, editor = _provider(tmp_path)
    target = await fs.resolve("c.txt")
    outcome = await fs.edit_text(target, _edit("closed", "edited"))
    (params,) = editor.model.received
    assert params["edit"]["documentChanges"][0]["textDocument"]["version"] is None
    assert outcome.version.startswith("editor:")
    assert path.read_text() == "closed\n"
    assert await fs.read_text(target) == "edited\n"
    assert (await _info(fs, target)).version == outcome.version
    again = await fs.edit_text(
        target, _edit("edited", "twice"), expected=ExpectVersion(version=outcome.version)
    )
    assert await fs.read_text(target) == "twice\n"
    uri = params["edit"]["documentChanges"][0]["textDocument"]["uri"]
    await editor.save_documents([uri])
    info = await fs.stat(target)
    assert info is not None
    assert info.version not in (outcome.version, again.version), "the disk is the truth again"
    assert await fs.read_text(target) == "twice\n"


async def test_closed_files_the_editor_mirrors_are_verified(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_text("closed\n")
    fs, editor = _provider(tmp_path, mirror_loaded=True)
    target = await fs.resolve("c.txt")
    outcome = await fs.edit_text(target, _edit("closed", "edited"))
    assert outcome.version.startswith("buffer:")
    assert editor.documents.by_key(target.key) is not None
    assert await fs.read_text(target) == "edited\n"


async def test_new_files_are_created_in_the_editor(tmp_path: Path) -> None:
    fs, editor = _provider(tmp_path)
    target = await fs.resolve("pkg/new.py")
    outcome = await fs.write_text(target, "print('hi')\n", guard=CreateIfAbsent())
    (params,) = editor.model.received
    create, insert = params["edit"]["documentChanges"]
    assert create["kind"] == "create"
    assert create["options"] == {"overwrite": False, "ignoreIfExists": False}
    assert insert["edits"][0]["newText"] == "print('hi')\n"
    assert outcome.operation == "create"
    assert (tmp_path / "pkg" / "new.py").read_text() == "", "created empty; the text is unsaved"
    assert await fs.read_text(target) == "print('hi')\n"


async def test_new_files_go_to_disk_without_resource_operations(tmp_path: Path) -> None:
    fs, editor = _provider(tmp_path, replace(VSCODE, create_files=False))
    target = await fs.resolve("new.py")
    outcome = await fs.write_text(target, "x = 1\n", guard=CreateIfAbsent())
    assert editor.model.received == []
    assert (tmp_path / "new.py").read_text() == "x = 1\n"
    assert outcome.version == (await _info(fs, target)).version


async def test_clients_without_document_changes_get_a_changes_map(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("one\n")
    capabilities = replace(VSCODE, document_changes=False, create_files=False)
    fs, editor = _provider(tmp_path, capabilities)
    uri = editor.open(path)
    await fs.edit_text(await fs.resolve("a.txt"), _edit("one", "two"))
    (params,) = editor.model.received
    assert list(params["edit"]["changes"]) == [uri]
    assert "annotationId" not in params["edit"]["changes"][uri][0]
    assert editor.text(uri) == "two\n"


async def test_closing_the_document_during_the_edit_is_an_error(tmp_path: Path) -> None:
    fs, editor, uri, target = await _deferred(tmp_path, "one\n")
    errors: list[FsError] = []

    async def edit() -> None:
        try:
            await fs.edit_text(target, _edit("one", "two"))
        except FsError as exc:
            errors.append(exc)

    async with anyio.create_task_group() as group:
        group.start_soon(edit)
        await anyio.wait_all_tasks_blocked()
        editor.close(uri)
    (error,) = errors
    assert error.code == "FS_IO_ERROR"
    assert "closed" in str(error)


async def test_unsaved_agent_edits_are_listed_until_saved(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    (tmp_path / "b.txt").write_text("two\n")
    fs, editor = _provider(tmp_path, replace(VSCODE, save_documents=True))
    uri_a = editor.open(tmp_path / "a.txt")
    await fs.edit_text(await fs.resolve("a.txt"), _edit("one", "1"))
    await fs.edit_text(await fs.resolve("b.txt"), _edit("two", "2"))
    uri_b = editor.model.received[-1]["edit"]["documentChanges"][0]["textDocument"]["uri"]
    assert fs.disk_sync.unsaved() == (uri_a, uri_b)
    assert await fs.disk_sync.save() == (uri_a, uri_b)
    assert editor.save_requests == [[uri_a, uri_b]]
    assert fs.disk_sync.unsaved() == ()
    assert (tmp_path / "a.txt").read_text() == "1\n"
    assert (tmp_path / "b.txt").read_text() == "2\n"
    await fs.edit_text(await fs.resolve("a.txt"), _edit("1", "one"))
    editor.documents.saved(uri_a)
    assert fs.disk_sync.unsaved() == ()


async def test_clients_that_cannot_save_are_not_asked(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    fs, editor = _provider(tmp_path)
    editor.open(tmp_path / "a.txt")
    await fs.edit_text(await fs.resolve("a.txt"), _edit("one", "1"))
    assert await fs.disk_sync.save() == ()
    assert editor.save_requests == []
    assert len(fs.disk_sync.unsaved()) == 1


async def test_a_new_file_is_sent_for_the_checked_real_path_not_the_link(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    fs, editor = _provider(tmp_path)
    target = await fs.resolve("link/new.py")
    await fs.write_text(target, "x = 1\n", guard=CreateIfAbsent())
    (params,) = editor.model.received
    create = params["edit"]["documentChanges"][0]
    assert create["uri"] == from_fs_path(str(tmp_path / "real" / "new.py"))
