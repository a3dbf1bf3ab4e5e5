"""Any LSP editor, no plugin: executeCommand → progress → showMessageRequest → applyEdit →
showMessage, code actions, and cancelling through the progress, with the Neovim and VS Code
capability sets and no ``dsh`` opt-in."""

from __future__ import annotations

import json

import anyio
import pytest
from lsprotocol import types

from dsh_lsp.testing import ToolCallSpec, completion
from tests.server.support import (
    DshClient,
    Json,
    Rig,
    ServerOptions,
    edit_call,
    open_workspace_file,
    read_call,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def rig_options() -> ServerOptions:
    """A server for a client without the dsh protocol; edits need approval."""
    return {"rich": False, "init_options": {"permissions": {"edit": "ask"}}}


async def _command(client: DshClient, command: str, *arguments: Json) -> Json:
    params = types.ExecuteCommandParams(command=command, arguments=list(arguments))
    return await client.workspace_execute_command_async(params)


async def _next_message(client: DshClient, seen: int) -> types.ShowMessageParams:
    """The first ``window/showMessage`` after the first ``seen`` ones."""
    while len(client.messages) <= seen:
        await client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
    message: types.ShowMessageParams = client.messages[seen]
    return message


def _progress(client: DshClient) -> list[Json]:
    reports = [report for values in client.progress_reports.values() for report in values]
    return [client.protocol._converter.unstructure(report) for report in reports]


async def test_the_commands_are_advertised(rig: Rig) -> None:
    result = rig.extra["initialize"]
    provider = result.capabilities.execute_command_provider
    assert provider is not None
    commands = {"dsh.newSession", "dsh.prompt", "dsh.cancel", "dsh.resumeLast", "dsh.lastAnswer"}
    assert commands <= set(provider.commands)
    assert result.capabilities.code_action_provider is not None


async def test_a_prompt_command_runs_a_whole_turn(rig: Rig, client: DshClient) -> None:
    uri = open_workspace_file(rig, client, "todo.md", "- [ ] TODO: ship\n")
    rig.model.enqueue(
        completion(tool_calls=[read_call("todo.md")]),
        completion(tool_calls=[edit_call("todo.md", "- [ ] TODO: ship", "- [x] ship")]),
        completion(text="Shipped: the TODO in todo.md is checked off.\n\nNothing else to do."),
    )

    async def allow(params: Json) -> Json:
        return "Allow"

    client.answer_message = allow
    seen = len(client.messages)
    started = await _command(client, "dsh.prompt", "Check off the TODO", uri)
    assert set(started) == {"sessionId"}
    shown = await _next_message(client, seen)
    assert shown.message.startswith("dsh: Shipped: the TODO in todo.md is checked off.")
    assert client.editor.buffers[uri].text == "- [x] ship\n"
    assert [q["message"] for q in client.message_requests][-1].startswith(
        "dsh-lsp wants to run: Edit todo.md"
    )
    assert client.message_requests[-1]["actions"] == [
        "Allow",
        "Always allow",
        "Reject",
        "Always reject",
    ]
    logged = [m.message for m in client.log_messages]
    assert any(message.endswith("Nothing else to do.") for message in logged)
    values = _progress(client)
    assert values[0]["kind"] == "begin"
    assert values[0]["cancellable"] is True
    messages = [v.get("message") for v in values if v["kind"] == "report"]
    assert messages == ["Reading todo.md", "Editing todo.md"]
    assert values[-1] == {"kind": "end", "message": "done"}
    attached = rig.model.requests()[0]["messages"][-1]
    assert "todo.md" in json.dumps(attached), "the document was attached"


async def test_cancelling_the_progress_cancels_the_turn(rig: Rig, client: DshClient) -> None:
    asked = anyio.Event()

    async def never(params: Json) -> Json:
        asked.set()
        await anyio.sleep_forever()

    client.answer_message = never
    args = json.dumps({"file_path": "later.txt", "content": "x\n"})
    rig.model.enqueue(completion(tool_calls=[ToolCallSpec(id="w1", name="write", arguments=args)]))
    client.progress_reports.clear()
    seen = len(client.messages)
    await _command(client, "dsh.newSession")
    await _command(client, "dsh.prompt", "take your time")
    with anyio.fail_after(20):
        await asked.wait()  # the turn waits for the user's approval
    (token,) = client.progress_reports
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    shown = await _next_message(client, seen)
    assert shown.message == "dsh: cancelled"
    assert _progress(client)[-1] == {"kind": "end", "message": "cancelled"}
    assert not (rig.workspace / "later.txt").exists()


async def test_cancel_resume_and_code_action_commands(rig: Rig, client: DshClient) -> None:
    assert await _command(client, "dsh.cancel") == {"cancelled": False}
    resumed = await _command(client, "dsh.resumeLast")
    assert isinstance(resumed["sessionId"], str)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=rig.uri("todo.md")),
            range=types.Range(
                start=types.Position(line=0, character=0), end=types.Position(line=0, character=5)
            ),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert actions is not None
    titles = [action.title for action in actions]
    assert titles == ["Ask dsh: fix this", "Ask dsh: explain this"]


async def test_bad_command_arguments_are_invalid_params(rig: Rig, client: DshClient) -> None:
    from pygls.exceptions import JsonRpcInvalidParams

    with pytest.raises(JsonRpcInvalidParams, match=r"arguments\.prompt"):
        await _command(client, "dsh.prompt", "")
