"""``dsh-lsp run``: the headless runner as a subprocess against the scripted HTTP server."""

from __future__ import annotations

import io
import json
import re
import subprocess
import threading
from pathlib import Path

import anyio
import pytest

from dsh_lsp.cli.approvals import NO_TERMINAL, TerminalPermissions
from dsh_lsp.cli.runner import DIM, RESET, TurnPrinter
from dsh_lsp.llm import CallId, ReasoningDelta, SessionId, TextDelta
from dsh_lsp.session import Session, SessionEventNotice, SessionHeader, assistant_chunk_data
from dsh_lsp.testing.openai_chunks import ToolCallSpec, completion, error
from dsh_lsp.testing.scripted_server import ScriptedServer
from dsh_lsp.tools import ToolCallView, ToolExecution
from tests.cli_process import dsh_env, run_dsh

SESSION_LINE = re.compile(r"^session: (\S+)$", re.MULTILINE)


def _run(
    tmp_path: Path,
    server: ScriptedServer,
    *args: str,
    key: str | None = "dummy-key",
    extra_env: dict[str, str] | None = None,
    base_url: str | None = None,
) -> subprocess.CompletedProcess[str]:
    env = dsh_env(tmp_path, server.base_url if base_url is None else base_url, key=key)
    env.update(extra_env or {})
    return run_dsh(["run", *args], env)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "hello.txt").write_text("first line\nsecond line\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("do not read", encoding="utf-8")
    return root


def _session_id(stderr: str) -> str:
    match = SESSION_LINE.search(stderr)
    assert match is not None, stderr
    return match.group(1)


def test_streams_reasoning_and_text_and_prints_the_session(tmp_path: Path, workspace: Path) -> None:
    with ScriptedServer([completion(reasoning="pondering", text="Hello!")]) as server:
        result = _run(tmp_path, server, "say hello", "--cwd", str(workspace))
    assert result.returncode == 0, result.stderr
    assert "pondering" in result.stdout
    assert result.stdout.rstrip().endswith("Hello!")
    assert "\x1b[" not in result.stdout, "no escapes when stdout is not a terminal"
    _session_id(result.stderr)
    body = server.requests[0].json()
    assert body["messages"][-1] == {"role": "user", "content": "say hello"}
    assert sorted(t["function"]["name"] for t in body["tools"]) == [
        "bash",
        "bash_kill",
        "bash_output",
        "edit",
        "glob",
        "grep",
        "list",
        "multi_edit",
        "read",
        "todo_write",
        "write",
    ]
    assert server.requests[0].headers["authorization"] == "Bearer dummy-key"
    assert "dummy-key" not in result.stdout + result.stderr


def test_a_tool_call_round_trip_reads_inside_the_workspace(tmp_path: Path, workspace: Path) -> None:
    calls = [
        ToolCallSpec(id="call_1", name="read", arguments='{"file_path": "hello.txt"}'),
        ToolCallSpec(id="call_2", name="read", arguments='{"file_path": "../secret.txt"}'),
        ToolCallSpec(id="call_3", name="list", arguments="{}"),
    ]
    script = [completion(tool_calls=calls), completion(text="Read it.")]
    with ScriptedServer(script) as server:
        result = _run(tmp_path, server, "read hello.txt", "--cwd", str(workspace))
    assert result.returncode == 0, result.stderr
    assert "→ Read hello.txt" in result.stdout
    assert "→ List ." in result.stdout
    assert "✗ Error:" in result.stdout
    tools = {
        m["tool_call_id"]: m["content"]
        for m in server.requests[1].json()["messages"]
        if m["role"] == "tool"
    }
    assert tools["call_1"] == (
        f"<path>{workspace / 'hello.txt'}</path>\n<type>file</type>\n<content>\n"
        "1: first line\n2: second line\n\n(End of file - total 2 lines)\n</content>"
    )
    assert tools["call_2"] == f"Error: {NO_TERMINAL}", "nobody was asked, so nobody declined"
    assert "✓ (2 lines)" in result.stdout, "the file's lines, not the read's framing"
    assert "do not read" not in json.dumps(tools)
    assert tools["call_3"] == "./\n  hello.txt\n  src/"


def test_session_resumes_with_its_history(tmp_path: Path, workspace: Path) -> None:
    with ScriptedServer([completion(text="one"), completion(text="two")]) as server:
        first = _run(tmp_path, server, "first question", "--cwd", str(workspace))
        assert first.returncode == 0, first.stderr
        session = _session_id(first.stderr)
        second = _run(
            tmp_path, server, "second question", "--cwd", str(workspace), "--session", session
        )
    assert second.returncode == 0, second.stderr
    assert _session_id(second.stderr) == session
    messages = server.requests[1].json()["messages"]
    assert [(m["role"], m.get("content")) for m in messages if m["role"] != "system"] == [
        ("user", "first question"),
        ("assistant", "one"),
        ("user", "second question"),
    ]


def test_a_local_endpoint_runs_without_a_key(tmp_path: Path, workspace: Path) -> None:
    with ScriptedServer([completion(text="local answer")]) as server:
        result = _run(tmp_path, server, "hi", "--cwd", str(workspace), key=None)
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().endswith("local answer")
    assert "authorization" not in server.requests[0].headers


def test_a_base_url_without_scheme_is_rejected_at_once(tmp_path: Path, workspace: Path) -> None:
    with ScriptedServer([]) as server:
        result = _run(tmp_path, server, "hi", "--cwd", str(workspace), base_url="localhost:1/v1")
    assert result.returncode == 2
    assert "DEEPSEEK_BASE_URL 'localhost:1/v1' is not an http:// or https:// URL" in result.stderr
    assert server.requests == []


def test_a_failing_model_call_exits_non_zero(tmp_path: Path, workspace: Path) -> None:
    with ScriptedServer([error(400, "bad request body")]) as server:
        result = _run(tmp_path, server, "hi", "--cwd", str(workspace))
    assert result.returncode == 1
    assert "bad request body" in result.stderr
    _session_id(result.stderr)


def test_a_missing_api_key_or_session_cannot_start(tmp_path: Path, workspace: Path) -> None:
    with ScriptedServer([]) as server:
        # A local endpoint needs no key (issue 17), so the missing key shows on a remote one.
        remote = "https://api.deepseek.com"
        no_key = _run(tmp_path, server, "hi", "--cwd", str(workspace), key=None, base_url=remote)
        no_session = _run(tmp_path, server, "hi", "--cwd", str(workspace), "--session", "nope")
    assert no_key.returncode == 2
    assert "DEEPSEEK_API_KEY" in no_key.stderr
    assert no_session.returncode == 2
    assert "nope" in no_session.stderr
    assert server.requests == []


def test_every_settings_flag_reaches_the_request(tmp_path: Path, workspace: Path) -> None:
    sessions = tmp_path / "logs"
    flags = [
        *("--model", "my-model", "--api-key-env", "MY_KEY", "--thinking", "enabled"),
        *("--reasoning-effort", "high", "--temperature", "0.25", "--max-tokens", "321"),
        *("--stop", "END", "--stop", "FIN", "--max-steps", "1", "--session-dir", str(sessions)),
    ]
    script = [completion(tool_calls=[ToolCallSpec(id="c1", name="list", arguments="{}")])]
    with ScriptedServer(script) as server:
        cwd = ("--cwd", str(workspace))
        result = _run(tmp_path, server, "hi", *cwd, *flags, key=None, extra_env={"MY_KEY": "k-1"})
    assert result.returncode == 0, result.stderr
    assert "stopped early (max-steps)" in result.stderr, "--max-steps 1"
    (request,) = server.requests
    body = request.json()
    assert body["model"] == "my-model"
    assert body["thinking"] == {"type": "enabled"}
    assert body["reasoning_effort"] == "high"
    assert body["temperature"] == 0.25
    assert body["max_tokens"] == 321
    assert body["stop"] == ["END", "FIN"]
    assert request.headers["authorization"] == "Bearer k-1"
    assert any(path.suffix == ".jsonl" for path in sessions.rglob("*"))


def test_invalid_settings_flags_are_named_and_nothing_starts(
    tmp_path: Path, workspace: Path
) -> None:
    with ScriptedServer([]) as server:
        result = _run(tmp_path, server, "hi", "--cwd", str(workspace), "--temperature", "5")
    assert result.returncode == 2
    assert "invalid settings: dsh.model.temperature (--temperature):" in result.stderr
    assert server.requests == []


@pytest.mark.parametrize(
    ("yes", "interactive", "reply", "expected"),
    [
        (True, False, "", "allow_once"),
        (False, False, "y", "reject_once"),
        (False, True, "y\n", "allow_once"),
        (False, True, "always\n", "allow_always"),
        (False, True, "\n", "reject_once"),
    ],
)
def test_terminal_permissions(yes: bool, interactive: bool, reply: str, expected: str) -> None:
    prompt = io.StringIO()
    permissions = TerminalPermissions(
        yes=yes,
        interactive=interactive,
        prompt=prompt,
        answer=lambda: reply,
    )
    execution = ToolExecution(call_id=CallId("c"), name="write", arguments={})
    view = ToolCallView(title="Write a.txt", kind="edit")

    async def ask() -> str:
        return await permissions.request(execution, view, "it changes files")

    assert anyio.run(ask) == expected
    assert ("Write a.txt (it changes files)\n" in prompt.getvalue()) == (interactive and not yes)


def test_terminal_permissions_ask_one_question_at_a_time() -> None:
    """Two concurrent requests never have their prompts interleaved or race for stdin."""
    prompt = io.StringIO()
    answers = iter(["y\n", "n\n"])
    log: list[str] = []

    def answer() -> str:
        log.append(f"read after {prompt.getvalue().count('Allow?')} prompt(s)")
        return next(answers)

    permissions = TerminalPermissions(yes=False, interactive=True, prompt=prompt, answer=answer)

    async def both() -> list[str]:
        results: list[str] = []

        async def one(title: str) -> None:
            execution = ToolExecution(call_id=CallId(title), name="read", arguments={})
            view = ToolCallView(title=title, kind="read")
            results.append(await permissions.request(execution, view, None))

        async with anyio.create_task_group() as group:
            group.start_soon(one, "Read a")
            group.start_soon(one, "Read b")
        return results

    assert sorted(anyio.run(both)) == ["allow_once", "reject_once"]
    assert log == ["read after 1 prompt(s)", "read after 2 prompt(s)"]


def test_cancelling_abandons_a_pending_terminal_question() -> None:
    release = threading.Event()
    permissions = TerminalPermissions(
        yes=False,
        interactive=True,
        prompt=io.StringIO(),
        answer=lambda: "y\n" if release.wait(30) else "",
    )
    execution = ToolExecution(call_id=CallId("c"), name="write", arguments={})
    view = ToolCallView(title="Write a.txt", kind="edit")

    async def cancel_while_asking() -> bool:
        with anyio.move_on_after(0.05) as scope:
            await permissions.request(execution, view, None)
        return scope.cancelled_caught

    try:
        assert anyio.run(cancel_while_asking) is True
    finally:
        release.set()


def test_the_printer_dims_reasoning_on_a_terminal_and_ignores_other_sessions() -> None:
    out = io.StringIO()
    # No tool events in this test, so the printer never consults the registry.
    printer = TurnPrinter(out, None, color=True)  # type: ignore[arg-type]
    mine = Session(SessionHeader(id=SessionId("mine"), created_at=0))
    other = Session(SessionHeader(id=SessionId("other"), created_at=0))
    printer.session = mine.id
    for session in (mine, other):
        session.append("turn/start", {"turn": 1, "trigger": {"kind": "injection"}})
        session.append("step/start", {"turn": 1, "step": 1})
        for chunk in (ReasoningDelta(index=0, text="hmm"), TextDelta(index=1, text="Hi")):
            event = session.append("assistant/chunk", assistant_chunk_data(1, 1, chunk))
            printer.on_event(SessionEventNotice(session=session, event=event))
    assert out.getvalue() == f"{DIM}hmm{RESET}\nHi"


def test_searches_reads_and_edits_a_project_with_yes(tmp_path: Path, workspace: Path) -> None:
    source = workspace / "src" / "app.py"
    source.write_text('def greet():\n    return "hi"\n', encoding="utf-8")
    untouched = (workspace / "hello.txt").read_bytes()
    search = ToolCallSpec(id="c1", name="grep", arguments='{"pattern": "return \\"hi\\""}')
    read = ToolCallSpec(id="c2", name="read", arguments='{"file_path": "src/app.py"}')
    edit = ToolCallSpec(
        id="c3",
        name="edit",
        arguments=json.dumps(
            {"file_path": "src/app.py", "old_string": '"hi"', "new_string": '"hello"'}
        ),
    )
    script = [
        completion(tool_calls=[search]),
        completion(tool_calls=[read]),
        completion(tool_calls=[edit]),
        completion(text="Done."),
    ]
    with ScriptedServer(script) as server:
        result = _run(tmp_path, server, "say hello", "--cwd", str(workspace), "--yes")
    assert result.returncode == 0, result.stderr
    assert source.read_text(encoding="utf-8") == 'def greet():\n    return "hello"\n'
    assert (workspace / "hello.txt").read_bytes() == untouched
    tool_texts = [
        m["content"] for r in server.requests for m in r.json()["messages"] if m["role"] == "tool"
    ]
    assert "src/app.py:2:" in tool_texts[0]
    assert tool_texts[-1].startswith(f"Edited {source}: replaced 1 occurrence.")
    assert result.stdout.rstrip().endswith("Done.")


def test_an_edit_without_yes_and_without_a_terminal_is_refused(
    tmp_path: Path, workspace: Path
) -> None:
    edit = ToolCallSpec(
        id="c1",
        name="write",
        arguments=json.dumps({"file_path": "new.txt", "content": "x"}),
    )
    script = [completion(tool_calls=[edit]), completion(text="ok")]
    with ScriptedServer(script) as server:
        result = _run(tmp_path, server, "write", "--cwd", str(workspace))
    assert result.returncode == 0, result.stderr
    assert not (workspace / "new.txt").exists()
    tool = [m for m in server.requests[1].json()["messages"] if m["role"] == "tool"]
    assert tool[0]["content"] == f"Error: {NO_TERMINAL}"
