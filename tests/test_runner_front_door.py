"""``dsh-lsp run`` and ``dsh-lsp sessions`` as a newcomer meets them: through the real
executable, against the scripted model server; on a pty where a terminal is the point."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh_lsp.cli.approvals import NO_TERMINAL, describe_call
from dsh_lsp.llm import CallId
from dsh_lsp.server.errors import MODEL_HINT
from dsh_lsp.testing.openai_chunks import ToolCallSpec, completion, error
from dsh_lsp.testing.scripted_server import ScriptedServer
from dsh_lsp.tools import ToolCallView, ToolExecution, ToolLocation
from tests.cli_process import dsh_env, run_dsh
from tests.terminal import Terminal

SESSION_LINE = re.compile(r"^session: (\S+)$", re.MULTILINE)


def _env(tmp_path: Path, base_url: str) -> dict[str, str]:
    return dsh_env(tmp_path, base_url)


def _dsh(
    tmp_path: Path, base_url: str, *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return run_dsh(args, _env(tmp_path, base_url), cwd=cwd)


def _session_id(stderr: str) -> str:
    match = SESSION_LINE.search(stderr)
    assert match is not None, stderr
    return match.group(1)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text('def greet():\n    return "hi"\n', encoding="utf-8")
    (tmp_path / "secret.txt").write_text("outside\n", encoding="utf-8")
    return root


READ_APP = ToolCallSpec(id="read_app", name="read", arguments='{"file_path": "app.py"}')
READ_OUTSIDE = ToolCallSpec(id="r1", name="read", arguments='{"file_path": "../secret.txt"}')
"""Edits need a read of the file first."""


def _tool_messages(server: ScriptedServer, request: int) -> list[dict[str, Any]]:
    """The ``tool`` messages of the model request numbered ``request`` (0 is the first)."""
    return [m for m in server.requests[request].json()["messages"] if m["role"] == "tool"]


def _edit(call_id: str, old: str, new: str) -> ToolCallSpec:
    arguments = json.dumps({"file_path": "app.py", "old_string": old, "new_string": new})
    return ToolCallSpec(id=call_id, name="edit", arguments=arguments)


def test_a_resumed_session_keeps_its_workspace_from_another_folder(
    tmp_path: Path, workspace: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    script = [
        completion(text="noted"),
        completion(tool_calls=[READ_APP]),
        completion(tool_calls=[_edit("c1", '"hi"', '"hello"')]),
        completion(text="edited"),
    ]
    with ScriptedServer(script) as server:
        first = _dsh(tmp_path, server.base_url, "run", "remember", "--cwd", str(workspace))
        assert first.returncode == 0, first.stderr
        session = _session_id(first.stderr)
        contradicted = _dsh(
            tmp_path, server.base_url, "run", "x", "--session", session, "--cwd", str(elsewhere)
        )
        second = _dsh(
            tmp_path,
            server.base_url,
            *("run", "edit app.py", "--session", session, "--edit", "allow"),
            cwd=elsewhere,
        )
    assert contradicted.returncode == 2
    assert contradicted.stderr.count("\n") == 1, contradicted.stderr
    assert f"--cwd {elsewhere}" in contradicted.stderr
    assert str(workspace) in contradicted.stderr
    assert second.returncode == 0, second.stderr
    assert (workspace / "app.py").read_text(
        encoding="utf-8"
    ) == 'def greet():\n    return "hello"\n'
    assert list(elsewhere.iterdir()) == []
    tool = _tool_messages(server, 3)
    assert tool[-1]["content"].startswith(f"Edited {workspace / 'app.py'}")


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("run", "hi", "--cwd", "{tmp}/missing"), "--cwd"),
        (("run", "hi", "--cwd", "{tmp}/ws/app.py"), "--cwd"),
        (("run", "hi", "--model", ""), "--model"),
        (("run", "hi", "--log-file", "{tmp}/no/such/run.log"), "--log-file"),
        (("--log-file", "{tmp}/no/such/run.log", "run", "hi"), "--log-file"),
        (("--log-file", "{tmp}/no/such/server.log"), "--log-file"),
        (("run", ""), "prompt"),
        (("run", "  "), "prompt"),
        (("run", "hi", "--session", "nope"), "--session"),
        (("sessions", "show", "nope"), "nope"),
    ],
)
def test_a_bad_argument_is_one_line_naming_it_and_exit_2(
    tmp_path: Path, workspace: Path, args: tuple[str, ...], named: str
) -> None:
    argv = [arg.replace("{tmp}", str(tmp_path)) for arg in args]
    with ScriptedServer([]) as server:
        result = _dsh(tmp_path, server.base_url, *argv, cwd=workspace)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert named in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert server.requests == []


def test_log_flags_reach_the_runner_and_name_the_model_and_endpoint(
    tmp_path: Path, workspace: Path
) -> None:
    log = tmp_path / "run.log"
    with ScriptedServer([completion(text="hi")]) as server:
        flags = ("--log-level", "info", "--log-file", str(log), "--model", "my-model")
        result = _dsh(tmp_path, server.base_url, "run", "hello", "--cwd", str(workspace), *flags)
    assert result.returncode == 0, result.stderr
    text = log.read_text(encoding="utf-8")
    assert "model in use: my-model" in text
    assert f"model endpoint {server.base_url}" in text
    assert "dummy-key" not in text
    assert "INFO" not in result.stderr, "the logs went to the file"


def test_a_wrong_model_name_says_what_fixes_it(tmp_path: Path, workspace: Path) -> None:
    with ScriptedServer([error(400, "Model Not Exist")]) as server:
        result = _dsh(tmp_path, server.base_url, "run", "hi", "--cwd", str(workspace))
    assert result.returncode == 1
    assert "Model Not Exist" in result.stderr
    assert MODEL_HINT in result.stderr


def test_permission_levels_per_kind_apply_without_a_terminal(
    tmp_path: Path, workspace: Path
) -> None:
    script = [
        completion(tool_calls=[READ_OUTSIDE, READ_APP]),
        completion(tool_calls=[_edit("e1", '"hi"', '"hey"')]),
        completion(text="done"),
        completion(tool_calls=[READ_OUTSIDE]),
        completion(text="done"),
    ]
    with ScriptedServer(script) as server:
        allowed = _dsh(
            tmp_path,
            server.base_url,
            *("run", "go", "--cwd", str(workspace), "--edit", "allow", "--read-outside", "allow"),
        )
        denied = _dsh(
            tmp_path,
            server.base_url,
            "run",
            "go",
            "--cwd",
            str(workspace),
            "--read-outside",
            "deny",
        )
    assert allowed.returncode == 0, allowed.stderr
    assert denied.returncode == 0, denied.stderr
    first = {m["tool_call_id"]: m["content"] for m in _tool_messages(server, 2)}
    assert "outside" in first["r1"]
    assert first["e1"].startswith("Edited ")
    assert '"hey"' in (workspace / "app.py").read_text(encoding="utf-8")
    refused = [m["content"] for m in _tool_messages(server, 4)]
    assert refused[0].startswith("Error: ")
    assert "--read-outside is 'deny'" in refused[0]
    assert NO_TERMINAL not in refused[0]


def test_sessions_lists_shows_and_deletes(tmp_path: Path, workspace: Path) -> None:
    with ScriptedServer([completion(text="the answer")]) as server:
        ran = _dsh(tmp_path, server.base_url, "run", "the question", "--cwd", str(workspace))
        session = _session_id(ran.stderr)
        listed = _dsh(tmp_path, server.base_url, "sessions")
        shown = _dsh(tmp_path, server.base_url, "sessions", "show", session)
        deleted = _dsh(tmp_path, server.base_url, "sessions", "delete", session)
        after = _dsh(tmp_path, server.base_url, "sessions", "list")
    assert listed.returncode == 0, listed.stderr
    (line,) = listed.stdout.splitlines()
    assert line.startswith(session)
    assert str(workspace) in line
    assert shown.returncode == 0, shown.stderr
    assert f"workspace: {workspace}" in shown.stdout
    assert "> the question" in shown.stdout
    assert "the answer" in shown.stdout
    assert deleted.returncode == 0, deleted.stderr
    assert session in deleted.stdout
    assert after.stdout.startswith("no stored sessions in ")
    assert not list((tmp_path / "state").rglob("*.jsonl"))


def _terminal(tmp_path: Path, base_url: str, *args: str) -> Terminal:
    argv = [sys.executable, "-m", "dsh_lsp", *args]
    return Terminal(argv, env=_env(tmp_path, base_url), cwd=str(tmp_path))


def test_terminal_approval_shows_the_change_and_always_means_this_session(
    tmp_path: Path, workspace: Path
) -> None:
    script = [
        completion(tool_calls=[READ_OUTSIDE, READ_APP]),
        completion(tool_calls=[_edit("e1", '"hi"', '"hello"')]),
        completion(tool_calls=[_edit("e2", "greet", "welcome")]),
        completion(text="all done"),
    ]
    with (
        ScriptedServer(script) as server,
        _terminal(tmp_path, server.base_url, "run", "go", "--cwd", str(workspace)) as term,
    ):
        shown = term.read_until("[N] deny: ")
        assert f"path: {tmp_path / 'secret.txt'}" in shown or "path: ../secret.txt" in shown
        term.keys("n\n")
        term.read_until("deny: ", count=2)
        assert '\n  -"hi"\n  +"hello"\n' in term.output
        assert "[y] once / [a] always for this session / [N] deny" in term.output
        term.keys("a\n")
        assert term.wait() == 0, term.output
    assert term.output.count("deny: ") == 2, "always: the second edit was not asked"
    assert (workspace / "app.py").read_text(
        encoding="utf-8"
    ) == 'def welcome():\n    return "hello"\n'
    tools = [m["content"] for m in _tool_messages(server, 1)]
    assert tools[0] == "Error: the user declined to run read", "a person said no this time"


def test_ctrl_c_during_start_up_is_one_line_and_130(tmp_path: Path, workspace: Path) -> None:
    with (
        ScriptedServer([]) as server,
        _terminal(
            tmp_path, server.base_url, "--log-level", "info", "run", "hi", "--cwd", str(workspace)
        ) as term,
    ):
        term.read_until("model in use")  # the plugins are loading
        term.keys("\x03")
        assert term.wait() == 130, term.output
    assert "dsh-lsp: interrupted" in term.output
    assert "Traceback" not in term.output


def test_a_command_shows_its_command_and_folder_and_a_read_its_path() -> None:
    run = ToolExecution(
        call_id=CallId("c"), name="bash", arguments={"command": "make test", "cwd": "/w/sub"}
    )
    assert describe_call(run, ToolCallView(title="Run", kind="execute")) == (
        "  $ make test\n  in /w/sub\n"
    )
    read = ToolExecution(call_id=CallId("r"), name="read", arguments={"file_path": "/etc/x"})
    view = ToolCallView(title="Read /etc/x", kind="read", locations=(ToolLocation(path="/etc/x"),))
    assert describe_call(read, view) == "  path: /etc/x\n"
