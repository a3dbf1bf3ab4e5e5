"""Without ``experimental.dsh.editor`` the model never sees the editor's language-server
tools (not in the tool list, not in the system prompt) and edits work as before; a client
that lends only some methods gets only their tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dsh_lsp.testing import ToolCallSpec, completion
from tests.server.editor_model import Json
from tests.server.support import RICH, DshClient, ModelScript, Rig, open_document, running_server

pytestmark = pytest.mark.asyncio(loop_scope="module")

INTEL = {"diagnostics", "definition", "references", "symbols", "hover"}


def _offered(body: Json) -> tuple[set[str], str]:
    names = {tool["function"]["name"] for tool in body["tools"]}
    return names, str(body["messages"][0]["content"])


async def test_no_editor_capability_no_tools_and_edits_as_before(
    rig: Rig, client: DshClient
) -> None:
    (rig.workspace / "plain.py").write_text("a = 1\n")
    open_document(client, rig.uri("plain.py"), "a = 1\n")
    edit = {"file_path": "plain.py", "old_string": "a = 1", "new_string": "a = 2"}
    rig.model.enqueue(
        completion(
            tool_calls=[ToolCallSpec(id="r", name="read", arguments='{"file_path": "plain.py"}')]
        ),
        completion(tool_calls=[ToolCallSpec(id="e", name="edit", arguments=json.dumps(edit))]),
        completion(text="done"),
    )
    session = await client.new_session()
    await client.prompt(session, "edit")
    body = rig.model.requests()[-1]
    names, system = _offered(body)
    assert not names & INTEL
    assert "`diagnostics`" not in system
    assert "`definition`" not in system
    result = str([m for m in body["messages"] if m["role"] == "tool"][-1]["content"])
    assert "problems" not in result.lower()
    assert client.editor.buffers[rig.uri("plain.py")].text == "a = 2\n"


async def test_a_client_lending_only_definition_gets_only_that_tool(
    model: ModelScript, tmp_path: Path
) -> None:
    experimental = {"dsh": {**RICH["dsh"], "editor": {"definition": True, "hover": False}}}
    async with running_server(
        "visual-studio-code", model, tmp_path, experimental=experimental
    ) as started:
        model.enqueue(completion(text="hi"))
        session = await started.client.new_session()
        await started.client.prompt(session, "hello")
        names, system = _offered(model.requests()[-1])
    assert names & INTEL == {"definition"}
    assert "`definition`" in system
    assert "`diagnostics`" not in system
