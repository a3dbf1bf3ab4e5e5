"""Edits through the editor, end to end: a real server process, a pytest-lsp client that
answers ``workspace/applyEdit`` like an editor (it applies the edit to its own copy of the
document and sends didChange), with the Neovim and VS Code capability sets."""

from __future__ import annotations

import json
from dataclasses import replace

import anyio
import pytest

from dsh_lsp.testing import ToolCallSpec, completion
from tests.server.editor_model import Json
from tests.server.support import (
    DshClient,
    Rig,
    edit_call,
    open_workspace_file,
    read_call,
    running_server,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

EMOJI = "\U0001f600"


def _last_tool_result(rig: Rig) -> str:
    body = rig.model.requests()[-1]
    tool = [m for m in body["messages"] if m["role"] == "tool"][-1]
    return str(tool["content"])


async def _read_and_edit(rig: Rig, client: DshClient, path: str, old: str, new: str) -> None:
    rig.model.enqueue(
        completion(tool_calls=[read_call(path)]),
        completion(tool_calls=[edit_call(path, old, new)]),
        completion(text="done"),
    )
    session = await client.new_session()
    assert (await client.prompt(session, f"edit {path}"))["stopReason"] == "end_turn"


async def test_the_agent_reads_the_unsaved_buffer(rig: Rig, client: DshClient) -> None:
    uri = open_workspace_file(rig, client, "unsaved.py", "x = 1\n")
    client.type(uri, 4, 5, "2  # unsaved")
    rig.model.enqueue(completion(tool_calls=[read_call("unsaved.py")]), completion(text="seen"))
    session = await client.new_session()
    await client.prompt(session, "read unsaved.py")
    assert "x = 2  # unsaved" in _last_tool_result(rig)
    assert (rig.workspace / "unsaved.py").read_text() == "x = 1\n"


async def test_an_edit_is_a_versioned_minimal_apply_edit(rig: Rig, client: DshClient) -> None:
    uri = open_workspace_file(rig, client, "app.py", "def f():\n    return 1\n")
    client.type(uri, 22, 22, "# wip\n")
    sent = len(client.editor.received)
    await _read_and_edit(rig, client, "app.py", "return 1", "return 2")
    (params,) = client.editor.received[sent:]
    assert params["label"] == "Edit app.py"
    (change,) = params["edit"]["documentChanges"]
    assert change["textDocument"] == {"uri": uri, "version": 2}
    (edit,) = change["edits"]
    assert edit["newText"] == "2"
    assert edit["range"]["start"] == {"line": 1, "character": 11}
    assert client.editor.buffers[uri].text == "def f():\n    return 2\n# wip\n"
    assert (rig.workspace / "app.py").read_text() == "def f():\n    return 1\n"
    assert client.messages == []


async def test_a_user_typing_before_the_answer_keeps_their_text(
    rig: Rig, client: DshClient
) -> None:
    uri = open_workspace_file(rig, client, "race.txt", "alpha\nbeta\n")

    async def user_types(params: Json) -> None:
        client.type(uri, 0, 0, "typed ")

    client.before_apply = user_types
    try:
        await _read_and_edit(rig, client, "race.txt", "beta", "gamma")
    finally:
        client.before_apply = None
    result = _last_tool_result(rig)
    assert "Error:" in result
    assert "read it again" in result.lower() or "read the file again" in result.lower()
    assert client.editor.buffers[uri].text == "typed alpha\nbeta\n"


async def test_positions_use_the_negotiated_encoding(rig: Rig, client: DshClient) -> None:
    text = f"s = '{EMOJI}{EMOJI}' + x\n"
    uri = open_workspace_file(rig, client, "emoji.py", text)
    sent = len(client.editor.received)
    await _read_and_edit(rig, client, "emoji.py", "+ x", "+ y")
    (params,) = client.editor.received[sent:]
    (edit,) = params["edit"]["documentChanges"][0]["edits"]
    encoding = client.editor.behaviour.encoding
    column = {"utf-16": 13, "utf-8": 17, "utf-32": 11}[encoding]  # the "x" after two emoji
    assert edit["range"]["start"] == {"line": 0, "character": column}
    assert client.editor.buffers[uri].text == f"s = '{EMOJI}{EMOJI}' + y\n"
    expected = {"neovim@v0.11": "utf-8", "visual-studio-code": "utf-16"}[rig.spec]
    assert encoding == expected


async def test_crlf_buffers_keep_their_line_endings(rig: Rig, client: DshClient) -> None:
    uri = open_workspace_file(rig, client, "win.txt", "one\r\ntwo\r\nthree\r\n")
    await _read_and_edit(rig, client, "win.txt", "two\nthree", "2\n3\n4")
    assert client.editor.buffers[uri].text == "one\r\n2\r\n3\r\n4\r\n"


async def test_a_huge_buffer_gets_a_one_line_hunk(rig: Rig, client: DshClient) -> None:
    text = "".join(f"value_{i} = {i}\n" for i in range(100_000))
    uri = open_workspace_file(rig, client, "huge.py", text)
    sent = len(client.editor.received)
    await _read_and_edit(rig, client, "huge.py", "value_98765 = 98765\n", "value_98765 = 0\n")
    (params,) = client.editor.received[sent:]
    assert len(json.dumps(params)) < 1024
    (edit,) = params["edit"]["documentChanges"][0]["edits"]
    assert edit["newText"] == "0"
    assert client.editor.buffers[uri].text == text.replace(
        "value_98765 = 98765\n", "value_98765 = 0\n"
    )


async def test_a_new_file_is_created_in_the_editor(rig: Rig, client: DshClient) -> None:
    args = json.dumps({"file_path": "pkg/new.py", "content": "print('hi')\n"})
    rig.model.enqueue(
        completion(tool_calls=[ToolCallSpec(id="w1", name="write", arguments=args)]),
        completion(text="created"),
    )
    sent = len(client.editor.received)
    session = await client.new_session()
    await client.prompt(session, "create pkg/new.py")
    (params,) = client.editor.received[sent:]
    create, fill = params["edit"]["documentChanges"]
    assert create["kind"] == "create"
    assert create["uri"] == rig.uri("pkg/new.py")
    assert fill["edits"][0]["newText"] == "print('hi')\n"
    assert (rig.workspace / "pkg" / "new.py").read_text() == "print('hi')\n"  # the editor saved


async def test_without_resource_operations_a_new_file_goes_to_disk(
    rig: Rig, tmp_path_factory: pytest.TempPathFactory
) -> None:
    if rig.spec != "visual-studio-code":
        pytest.skip("one run is enough: the Emacs capability set has no resource operations")
    root = tmp_path_factory.mktemp("emacs")
    async with running_server("emacs", rig.model, root) as emacs:
        args = json.dumps({"file_path": "new.txt", "content": "from disk\n"})
        rig.model.enqueue(
            completion(tool_calls=[ToolCallSpec(id="w1", name="write", arguments=args)]),
            completion(text="created"),
        )
        session = await emacs.client.new_session()
        await emacs.client.prompt(session, "create new.txt")
        assert emacs.client.editor.received == []
        assert (emacs.workspace / "new.txt").read_text() == "from disk\n"


async def test_edits_of_closed_files_stay_unsaved_until_the_editor_saves(
    rig: Rig, client: DshClient
) -> None:
    (rig.workspace / "closed.txt").write_text("before\n")
    client.editor.behaviour = replace(client.editor.behaviour, save_loaded=False)
    try:
        rig.model.enqueue(
            completion(tool_calls=[read_call("closed.txt")]),
            completion(tool_calls=[edit_call("closed.txt", "before", "after")]),
            completion(tool_calls=[read_call("closed.txt", "r2")]),
            completion(text="done"),
        )
        session = await client.new_session()
        await client.prompt(session, "edit closed.txt")
    finally:
        client.editor.behaviour = replace(client.editor.behaviour, save_loaded=True)
    assert "after" in _last_tool_result(rig), "the agent reads its own unsaved edit"
    assert (rig.workspace / "closed.txt").read_text() == "before\n"
    assert client.editor.buffers[rig.uri("closed.txt")].text == "after\n"


async def test_a_late_answer_after_cancel_is_ignored_quietly(rig: Rig, client: DshClient) -> None:
    uri = open_workspace_file(rig, client, "late.txt", "slow\n")
    asked = anyio.Event()
    withdrawn: list[bool] = []

    async def never(params: Json) -> None:
        asked.set()
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            withdrawn.append(True)  # the server withdrew the request: pygls answers -32800 late
            client.touched()
            raise

    rig.model.enqueue(
        completion(tool_calls=[read_call("late.txt")]),
        completion(tool_calls=[edit_call("late.txt", "slow", "fast")]),
    )
    client.before_apply = never
    session = await client.new_session()
    try:
        async with client.prompting(session, "edit late.txt") as outcome:
            with anyio.fail_after(20):
                await asked.wait()
            client.protocol.notify("dsh/cancel", {"sessionId": session})
    finally:
        client.before_apply = None
    assert outcome == {"result": {"stopReason": "cancelled"}}
    await client.until(lambda: bool(withdrawn))
    assert client.editor.buffers[uri].text == "slow\n"
    rig.model.enqueue(completion(text="still here"))
    assert (await client.prompt(session, "and now?"))["stopReason"] == "end_turn"
    assert client.messages == [], "no error pop-up for the late answer"


async def test_titles_and_edit_labels_show_paths_relative_to_the_session_cwd(
    rig: Rig, client: DshClient
) -> None:
    open_workspace_file(rig, client, "abs.py", "a = 1\n")
    absolute = str(rig.workspace / "abs.py")
    grep = ToolCallSpec(
        id="g1", name="grep", arguments=json.dumps({"pattern": "a", "path": str(rig.workspace)})
    )
    sent = len(client.editor.received)
    rig.model.enqueue(
        completion(tool_calls=[read_call(absolute), grep]),
        completion(tool_calls=[edit_call(absolute, "a = 1", "a = 2")]),
        completion(text="done"),
    )
    session = await client.new_session()
    assert (await client.prompt(session, "edit it"))["stopReason"] == "end_turn"
    titles = {call_id: card["title"] for call_id, card in client.cards(session).items()}
    assert titles == {"r1": "Read abs.py", "g1": "Grep 'a' in .", "e1": "Edit abs.py"}
    (params,) = client.editor.received[sent:]
    assert params["label"] == "Edit abs.py"
    edit_card = next(
        c for c in client.tool_calls(session) if c["toolCallId"] == "e1" and "content" in c
    )
    assert edit_card["content"][0]["path"] == absolute
