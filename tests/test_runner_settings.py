"""``dsh-lsp run`` flags for the shell, instruction and compaction settings: each produces
the ``dsh`` key the editor's setting does, and reaches the turn (a real runner subprocess
against the scripted HTTP server)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from dsh_lsp.cli import build_parser
from dsh_lsp.cli.approvals import NO_TERMINAL
from dsh_lsp.cli.runner import FLAGS, settings_from_flags
from dsh_lsp.server import parse_settings
from dsh_lsp.testing.openai_chunks import ToolCallSpec, completion, wire_usage
from dsh_lsp.testing.scripted_server import ScriptedServer
from tests.cli_process import dsh_env, run_dsh

from .test_runner import _session_id

SETTING_FLAGS = {
    "dsh.permissions.shellAllow": "--shell-allow",
    "dsh.shell.defaultTimeout": "--shell-timeout",
    "dsh.shell.maxTimeout": "--shell-max-timeout",
    "dsh.instructions.files": "--instructions",
    "dsh.compaction.threshold": "--compact-threshold",
    "dsh.model.contextWindow": "--context-window",
}
"""The editor settings of the shell, instructions and compaction, and their flags."""


def _run(tmp_path: Path, server: ScriptedServer, *args: str) -> subprocess.CompletedProcess[str]:
    env = dsh_env(tmp_path, server.base_url, strip=("DEEPSEEK_", "XDG_"))
    return run_dsh(["run", *args], env)


def bash(call_id: str, command: str, **extra: object) -> ToolCallSpec:
    arguments = json.dumps({"command": command, "description": "run it", **extra})
    return ToolCallSpec(id=call_id, name="bash", arguments=arguments)


def tool_messages(body: dict[str, object]) -> dict[str, str]:
    messages = body["messages"]
    assert isinstance(messages, list)
    return {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}


def system_prompt(body: dict[str, object]) -> str:
    messages = body["messages"]
    assert isinstance(messages, list)
    return "\n".join(m["content"] for m in messages if m["role"] == "system")


def test_each_flag_spells_its_setting() -> None:
    args = build_parser().parse_args(
        [
            *("run", "hi", "--shell-allow", "pytest", "--shell-allow", "npm test"),
            *("--shell-timeout", "30", "--shell-max-timeout", "900"),
            *("--instructions", "RULES.md", "--instructions", "docs/AI.md"),
            *("--compact-threshold", "0.5", "--context-window", "64000"),
        ]
    )
    section = settings_from_flags(args)
    assert section == {
        "model": {"contextWindow": 64000},
        "permissions": {"shellAllow": ["pytest", "npm test"]},
        "shell": {"defaultTimeout": 30.0, "maxTimeout": 900.0},
        "instructions": {"files": ["RULES.md", "docs/AI.md"]},
        "compaction": {"threshold": 0.5},
    }
    settings = parse_settings(section)
    assert settings.permissions.shell_allow == ("pytest", "npm test")
    assert settings.shell.default_timeout == 30.0
    assert settings.shell.max_timeout == 900.0
    assert settings.instructions.files == ("RULES.md", "docs/AI.md")
    assert settings.compaction.threshold == 0.5
    assert settings.model.context_window == 64000
    none = settings_from_flags(build_parser().parse_args(["run", "hi", "--no-instructions"]))
    assert parse_settings(none).instructions.files == ()
    for path, flag in SETTING_FLAGS.items():
        assert FLAGS[path] == flag, "a bad value's error names the flag"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--shell-allow", "make && rm -rf /"), "--shell-allow 'make && rm -rf /'"),
        (("--instructions", "A.md", "--no-instructions"), "--no-instructions"),
        (("--compact-threshold", "1.5"), "dsh.compaction.threshold (--compact-threshold):"),
        (("--context-window", "10"), "dsh.model.contextWindow (--context-window):"),
        (("--shell-timeout", "0"), "dsh.shell.defaultTimeout (--shell-timeout):"),
    ],
)
def test_a_bad_value_is_named_and_nothing_starts(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    with ScriptedServer([]) as server:
        result = _run(tmp_path, server, "hi", "--cwd", str(tmp_path), *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert server.requests == []


def test_shell_allow_without_a_terminal_refuses_a_chain(tmp_path: Path) -> None:
    script = [
        completion(tool_calls=[bash("b1", "echo allowed-run"), bash("b2", "echo x && echo y")]),
        completion(tool_calls=[bash("b3", "echo slow; sleep 5")]),
        completion(text="done"),
    ]
    flags = ("--shell-allow", "echo", "--shell-allow", "echo slow", "--shell-timeout", "0.5")
    with ScriptedServer(script) as server:
        result = _run(tmp_path, server, "go", "--cwd", str(tmp_path), *flags)
    assert result.returncode == 0, result.stderr
    first = tool_messages(server.requests[1].json())
    assert first["b1"].startswith("allowed-run\n"), "the prefix approved it: nobody was asked"
    assert first["b2"] == f"Error: {NO_TERMINAL}", "a chain is never approved by a prefix"
    second = tool_messages(server.requests[2].json())
    assert second["b3"] == f"Error: {NO_TERMINAL}", "'echo slow; sleep 5' is a chain too"


def test_the_shell_timeout_applies_to_a_command(tmp_path: Path) -> None:
    script = [
        completion(tool_calls=[bash("b1", "echo started; sleep 5")]),
        completion(text="done"),
    ]
    with ScriptedServer(script) as server:
        result = _run(
            tmp_path, server, "go", "--cwd", str(tmp_path), "--yes", "--shell-timeout", "0.5"
        )
    assert result.returncode == 0, result.stderr
    text = tool_messages(server.requests[1].json())["b1"]
    assert text.startswith("started\n")
    assert "[timed out after 0.5s]" in text


def test_the_instruction_files_are_the_flags(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("agents-file-rule\n", encoding="utf-8")
    (tmp_path / "RULES.md").write_text("rules-file-rule\n", encoding="utf-8")
    script = [completion(text="one"), completion(text="two"), completion(text="three")]
    with ScriptedServer(script) as server:
        runs = [
            _run(tmp_path, server, "hi", "--cwd", str(tmp_path)),
            _run(tmp_path, server, "hi", "--cwd", str(tmp_path), "--instructions", "RULES.md"),
            _run(tmp_path, server, "hi", "--cwd", str(tmp_path), "--no-instructions"),
        ]
    for result in runs:
        assert result.returncode == 0, result.stderr
    default, chosen, none = (system_prompt(r.json()) for r in server.requests)
    assert "agents-file-rule" in default
    assert "rules-file-rule" in chosen
    assert "agents-file-rule" not in chosen
    assert "agents-file-rule" not in none
    assert "rules-file-rule" not in none


def test_the_window_and_threshold_compact_a_resumed_session(tmp_path: Path) -> None:
    script = [
        completion(text="first answer", usage=wire_usage(prompt=1500, completion=10)),
        completion(text="second answer", usage=wire_usage(prompt=1600, completion=10)),
        completion(text="CHECKPOINT: the user asked twice"),
        completion(text="third answer"),
    ]
    flags = ("--context-window", "2048", "--compact-threshold", "0.5")
    cwd = ("--cwd", str(tmp_path))
    with ScriptedServer(script) as server:
        first = _run(tmp_path, server, "first question", *cwd)
        assert first.returncode == 0, first.stderr
        session = _session_id(first.stderr)
        resume = ("--session", session)
        second = _run(tmp_path, server, "second question", *cwd, *resume)
        assert second.returncode == 0, second.stderr
        third = _run(tmp_path, server, "third question", *cwd, *resume, *flags)
    assert third.returncode == 0, third.stderr
    bodies = [json.dumps(r.json()) for r in server.requests]
    compacting = ["You are compacting the history" in body for body in bodies]
    assert compacting == [False, False, True, False], "1610 of 128000 is far from full"
    turn = server.requests[3].json()
    users = [m["content"] for m in turn["messages"] if m["role"] == "user"]
    assert users == [
        "<compacted-summary>\nCHECKPOINT: the user asked twice\n</compacted-summary>",
        "third question",
    ]
