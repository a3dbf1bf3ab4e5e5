""" "Run the tests and fix what fails" end to end through the real server: the scripted model
runs a real ``python -m pytest`` in a temp project with the ``bash`` tool (the client
approves it), reads the failure, edits the open buffer (unsaved), and reruns; the agent's
edit is saved (``dsh/saveDocuments``, that buffer only) before the second run, which sees
it and passes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from dsh_lsp.testing import ToolCallSpec, completion
from tests.server.support import (
    DshClient,
    Json,
    Rig,
    ServerOptions,
    open_document,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

CALC = "def answer():\n    return 41\n"
TEST = "from calc import answer\n\n\ndef test_answer():\n    assert answer() == 42\n"
PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider test_calc.py"


@pytest.fixture(scope="module")
def rig_options() -> ServerOptions:
    """A server whose client answers ``dsh/saveDocuments`` (shell policy: the default ``ask``)."""
    return {"save_documents": True}


def call(call_id: str, name: str, **arguments: Json) -> ToolCallSpec:
    return ToolCallSpec(id=call_id, name=name, arguments=json.dumps(arguments))


def tool_message(body: Json, call_id: str) -> str:
    """The content of the tool message answering ``call_id`` in a chat request body."""
    for message in body["messages"]:
        if message["role"] == "tool" and message.get("tool_call_id") == call_id:
            content = message["content"]
            return content if isinstance(content, str) else json.dumps(content)
    raise AssertionError(f"no tool message for {call_id}")


async def test_run_the_tests_read_the_failure_fix_it_and_rerun(rig: Rig, client: DshClient) -> None:
    workspace = rig.workspace
    (workspace / "calc.py").write_text(CALC, encoding="utf-8")
    (workspace / "test_calc.py").write_text(TEST, encoding="utf-8")
    (workspace / "notes.md").write_text("draft\n", encoding="utf-8")
    calc_uri, notes_uri = rig.uri("calc.py"), rig.uri("notes.md")
    open_document(client, calc_uri, CALC)
    open_document(client, notes_uri, "user typing draft\n")  # the user's own unsaved change
    asked: list[Json] = []

    async def approve(params: Json) -> Json:
        asked.append(params)
        return {"outcome": {"outcome": "selected", "optionId": "allow_once"}}

    client.answer_permission = approve
    disk_at_save: list[str] = []
    client.before_save = lambda uris: disk_at_save.append(
        Path(workspace / "calc.py").read_text(encoding="utf-8")
    )
    rig.model.enqueue(
        completion(tool_calls=[call("t1", "bash", command=PYTEST, description="Run the tests")]),
        completion(tool_calls=[call("r1", "read", file_path="calc.py")]),
        completion(
            tool_calls=[call("e1", "edit", file_path="calc.py", old_string="41", new_string="42")]
        ),
        completion(tool_calls=[call("t2", "bash", command=PYTEST, description="Rerun them")]),
        completion(text="Fixed: answer() returns 42 and the test passes."),
    )
    session = await client.new_session()
    start = len(rig.model.requests())
    result = await client.prompt(session, "run the tests and fix what fails")
    assert result["stopReason"] == "end_turn"

    bodies = rig.model.requests()[start:]
    assert len(bodies) == 5
    first_run = tool_message(bodies[1], "t1")
    assert "1 failed" in first_run, first_run
    assert "assert 41 == 42" in first_run, "the model read the failure"
    assert "[exit code: 1]" in first_run
    second_run = tool_message(bodies[4], "t2")
    assert "1 passed" in second_run, second_run
    assert "[exit code: 0]" in second_run
    assert "Not saved" not in second_run

    assert [a["toolCall"]["toolCallId"] for a in asked] == ["t1", "t2"]
    assert PYTEST in asked[0]["reason"]
    assert client.save_requests == [[calc_uri]], "exactly the agent's edit was saved"
    assert disk_at_save == [CALC], "the edit was unsaved until the command needed it"
    assert (workspace / "calc.py").read_text(encoding="utf-8") == CALC.replace("41", "42")
    assert (workspace / "notes.md").read_text(encoding="utf-8") == "draft\n", "user's stays"
    assert client.editor.buffers[notes_uri].text == "user typing draft\n"
    cards = [c for c in client.tool_calls(session) if c["toolCallId"] == "t2"]
    assert cards[-1]["status"] == "completed"
