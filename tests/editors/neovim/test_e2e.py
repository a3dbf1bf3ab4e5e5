"""End to end in a real Neovim: the plugin, the real ``dsh-lsp`` server and the scripted model.

Neovim starts the server itself (``python -m dsh_lsp``) through the plugin's LSP config; the
model is a ``ScriptedServer`` on 127.0.0.1 in this process, so each test checks both sides:
what Neovim shows (from the Lua spec's results) and what the model was sent (the recorded
requests). The workspace holds ``notes.txt`` (alpha, beta, gamma); every run has its own
HOME and XDG directories, and the Lua script its own deadline.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from dsh_lsp.testing import (
    RecordedRequest,
    ScriptedResponse,
    ScriptedServer,
    StreamResponse,
    completion,
    wire_usage,
)

from ..tier import hanging, server_env, tool_call, tool_messages
from .nvim_runner import LuaRun, run_spec
from .test_editor_tools import language_servers

pytestmark = pytest.mark.e2e

SPEC = "e2e_spec.lua"

USAGE = wire_usage(prompt=1200, completion=40, cached=900, reasoning=12)


def _read(call_id: str) -> StreamResponse:
    return tool_call(call_id, "read", file_path="notes.txt")


def _edit(call_id: str, old: str, new: str) -> StreamResponse:
    return tool_call(call_id, "edit", file_path="notes.txt", old_string=old, new_string=new)


def _text(text: str) -> StreamResponse:
    return completion(text=text, usage=USAGE)


def _all_text(request: RecordedRequest) -> str:
    return request.body.decode("utf-8")


def _run(
    case: str,
    tmp_path: Path,
    workspace: Path,
    model: ScriptedServer,
    script: Sequence[ScriptedResponse],
    nvim: str | None = None,
    **env: str,
) -> LuaRun:
    model.enqueue(*script)
    run_env = {**server_env(tmp_path, workspace, model.base_url), **env}
    run = run_spec(SPEC, case, tmp_path, env=run_env, deadline=40, nvim=nvim)
    log = tmp_path / "server.log"
    if run.returncode != 0 and log.exists():
        run = LuaRun(
            returncode=run.returncode,
            result=run.result,
            stderr=run.stderr + "\n--- server.log (tail) ---\n" + log.read_text()[-4000:],
        )
    return run


def test_unsaved_buffer_is_read_and_edited_through_the_editor(
    tmp_path: Path, workspace: Path, model: ScriptedServer, nvim: str
) -> None:
    script = [_read("c1"), _edit("c2", "beta UNSAVED", "beta EDITED"), _text("Done.")]
    run = _run(
        "unsaved buffer is read and edited through the editor",
        tmp_path,
        workspace,
        model,
        script,
        nvim,
    )
    run.assert_passed()
    requests = model.requests
    assert len(requests) == 3
    assert any("beta UNSAVED" in text for text in tool_messages(requests[1])), (
        "the read tool did not see the unsaved buffer"
    )
    assert (workspace / "notes.txt").read_text() == "alpha\nbeta\ngamma\n"


def test_save_after_turn_writes_the_edited_buffer(
    tmp_path: Path, workspace: Path, model: ScriptedServer, nvim: str
) -> None:
    script = [_read("c1"), _edit("c2", "beta", "beta EDITED"), _text("Done.")]
    run = _run("save after turn writes the edited buffer", tmp_path, workspace, model, script, nvim)
    run.assert_passed()
    assert len(model.requests) == 3
    assert (workspace / "notes.txt").read_text() == "alpha\nbeta EDITED\ngamma\n"


def test_streamed_answer_lands_in_the_chat_buffer(
    tmp_path: Path, workspace: Path, model: ScriptedServer, nvim: str
) -> None:
    text = "".join(f"Line {i}: the quick brown fox jumps over the lazy dog.\n" for i in range(40))
    text += "**The end** — ünïcödé ✓"
    script = [completion(reasoning="Think first.\nThen answer.", text=text, usage=USAGE)]
    run = _run(
        "streamed answer lands in the chat buffer",
        tmp_path,
        workspace,
        model,
        script,
        nvim,
        DSH_EXPECT_TEXT=text,
    )
    run.assert_passed()
    assert run.result["data"]["done"]["stopReason"] == "end_turn"
    chat: list[str] = run.result["data"]["chat"]
    usage_lines = [line for line in chat if line.startswith("tokens: ")]
    assert usage_lines, chat
    assert usage_lines[-1].startswith("tokens: 1,200 in (75% cached) · 40 out · 12 reasoning")
    assert "· context: " in usage_lines[-1], "the context meter"


@pytest.mark.parametrize("choice", ["allow_once", "reject_once"])
def test_permission_prompt_answered_through_vim_ui_select(
    choice: str, tmp_path: Path, workspace: Path, model: ScriptedServer, nvim: str
) -> None:
    script = [_read("c1"), _edit("c2", "beta", "beta EDITED"), _text("Done.")]
    run = _run(
        "permission prompt answered through vim.ui.select",
        tmp_path,
        workspace,
        model,
        script,
        nvim,
        DSH_CHOICE=choice,
    )
    run.assert_passed()
    edit_result = tool_messages(model.requests[2])[-1]
    if choice == "reject_once":
        assert "declined" in edit_result, edit_result


def test_stale_edit_is_refused_and_the_model_is_told(
    tmp_path: Path, workspace: Path, model: ScriptedServer, nvim: str
) -> None:
    script = [
        _read("c1"),
        _edit("c2", "beta", "beta EDITED"),
        _read("c3"),
        _text("I will redo it."),
    ]
    run = _run(
        "stale edit is refused and the model is told", tmp_path, workspace, model, script, nvim
    )
    run.assert_passed()
    edit_result = tool_messages(model.requests[2])[-1]
    assert "stale" in edit_result.lower(), edit_result
    reread = tool_messages(model.requests[3])[-1]
    assert "gamma typed by the user" in reread, "the refusal did not flush the typing: " + reread


def test_cancel_mid_stream(
    tmp_path: Path, workspace: Path, model: ScriptedServer, nvim: str
) -> None:
    script = [hanging("Once upon ", "a time"), _text("after cancel")]
    run = _run("cancel mid-stream", tmp_path, workspace, model, script, nvim)
    run.assert_passed()
    assert model.wait_for_disconnect(5.0), "the cancelled model request was not closed"
    assert len(model.requests) == 2


def test_resume_after_restarting_neovim_and_the_server(
    tmp_path: Path, workspace: Path, model: ScriptedServer, nvim: str
) -> None:
    first = _run("resume: first run", tmp_path, workspace, model, [_text("Noted 42.")], nvim)
    first.assert_passed()
    session_id = first.result["data"]["session_id"]
    second = _run(
        "resume: second run",
        tmp_path,
        workspace,
        model,
        [_text("It was 42.")],
        nvim,
        DSH_SESSION_ID=session_id,
    )
    second.assert_passed()
    history = _all_text(model.requests[1])
    assert "remember 42" in history
    assert "Noted 42." in history


def test_checkhealth_against_the_real_server(
    tmp_path: Path, workspace: Path, model: ScriptedServer, nvim: str
) -> None:
    run = _run("checkhealth against the real server", tmp_path, workspace, model, [], nvim)
    run.assert_passed()


def test_a_failed_turn_shows_the_error_hint_in_the_chat(
    tmp_path: Path, workspace: Path, model: ScriptedServer, nvim: str
) -> None:
    """A missing key on a public base URL fails the turn with ``AUTH``; the chat buffer shows
    the server's message with its hint (the one error-presentation rule, ``user_message``)."""
    case = "a failed turn shows the error and its hint in the chat"
    run = _run(case, tmp_path, workspace, model, [], nvim, DEEPSEEK_API_KEY="")
    run.assert_passed()
    assert model.requests == []


A_PY = 't = "é😀" + helper("x")'
BROKEN_PY = 't = "é😀" + missing + helper("x")'


def test_the_agent_hears_of_the_error_it_wrote_of_its_fix_and_finds_a_definition(
    tmp_path: Path, workspace: Path, model: ScriptedServer, nvim: str
) -> None:
    """With ``ruff server`` and jedi-language-server beside dsh (a.py hidden behind the
    chat): the edit that introduces an undefined name is told exactly that problem, for the
    version it wrote; the fix is told "No new problems."; ``definition`` finds b.py."""
    (workspace / "a.py").write_text(f"from b import helper\n\n{A_PY}\n", encoding="utf-8")
    (workspace / "b.py").write_text(
        'def helper(text):\n    """Return the text twice."""\n    return text * 2\n',
        encoding="utf-8",
    )
    script = [
        tool_call("c1", "read", file_path="a.py"),
        tool_call("c2", "edit", file_path="a.py", old_string=A_PY, new_string=BROKEN_PY),
        tool_call("c3", "edit", file_path="a.py", old_string=BROKEN_PY, new_string=A_PY),
        tool_call("c4", "definition", path="a.py", line=3, symbol="helper"),
        _text("Done."),
    ]
    run = _run(
        "the agent hears of the error it wrote, of its fix, and finds a definition",
        tmp_path,
        workspace,
        model,
        script,
        nvim,
        **language_servers(),
    )
    run.assert_passed()
    versions: list[int] = run.result["data"]["versions"]
    broken = tool_messages(model.requests[2])[-1]
    assert f"(version {versions[0]})" in broken, broken
    problems = [line for line in broken.splitlines() if line.startswith("a.py:")]
    assert len(problems) == 1, broken
    assert re.match(r"a\.py:3:12: error: Undefined name `missing`", problems[0]), broken
    assert "F821" in problems[0], broken
    fixed = tool_messages(model.requests[3])[-1]
    assert "No new problems." in fixed, fixed
    assert "missing" not in fixed, fixed
    waits = [round(a["ms"]) for a in run.result["data"]["diagnostics_answers"]]
    print(f"diagnostics answers after an edit took {waits} ms")  # shown with pytest -s
    definition = tool_messages(model.requests[4])[-1]
    assert "b.py:1" in definition, definition
    assert "def helper(text):" in definition, definition
