"""The bash tools against a real bash: results, secrets, limits, cancel, background."""

from __future__ import annotations

import os
from pathlib import Path

import anyio

from dsh_lsp.llm import JsonValue
from dsh_lsp.shell import SHELL_OUTPUT, SHELL_TASK_DONE, ShellOutput, ShellTask
from tests.heard import Heard

from .support import live_members, shell_kernel, text_of


async def test_output_and_exit_code_are_a_result_not_an_error(tmp_path: Path) -> None:
    async with shell_kernel(tmp_path) as h:
        session = h.session()
        result = await h.call(
            "bash", {"command": "echo hi; echo oops >&2; exit 3", "description": "x"}, session
        )
    assert not result.is_error
    text = text_of(result)
    assert "hi\noops" in text
    assert text.endswith("[exit code: 3]")
    assert result.meta is not None
    assert result.meta["exitCode"] == 3


async def test_runs_in_the_workspace_and_a_workdir_inside_it(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    async with shell_kernel(tmp_path) as h:
        session = h.session()
        root = await h.call("bash", {"command": "pwd", "description": "where"}, session)
        sub = await h.call(
            "bash", {"command": "pwd", "description": "where", "workdir": "sub"}, session
        )
        outside = await h.call(
            "bash", {"command": "pwd", "description": "where", "workdir": ".."}, session
        )
    real = tmp_path.resolve()  # noqa: ASYNC240 - a test assertion
    assert text_of(root).startswith(f"{real}\n")
    assert text_of(sub).startswith(f"{real / 'sub'}\n")
    assert outside.is_error
    assert outside.error is not None
    assert outside.error.code == "SHELL_BAD_WORKDIR"


async def test_the_child_sees_no_secret(tmp_path: Path) -> None:
    environ = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DEEPSEEK_API_KEY": "secret-one",
        "GITHUB_TOKEN": "secret-two",
        "DB_PASSWORD": "secret-three",
        "aws_secret_access_key": "secret-four",
        "MODEL_CREDS": "secret-five",
        "HARMLESS": "visible",
    }
    config: dict[str, JsonValue] = {"secret_env_names": ["MODEL_CREDS"]}
    async with shell_kernel(tmp_path, environ=environ, config=config) as h:
        result = await h.call("bash", {"command": "env", "description": "env"}, h.session())
    text = text_of(result)
    assert "HARMLESS=visible" in text
    assert "secret-" not in text


async def test_stdin_is_closed(tmp_path: Path) -> None:
    async with shell_kernel(tmp_path) as h:
        with anyio.fail_after(10):
            result = await h.call(
                "bash", {"command": "cat; read x; echo $?", "description": "stdin"}, h.session()
            )
    assert text_of(result).startswith("1\n")


async def test_a_timeout_is_a_result(tmp_path: Path) -> None:
    async with shell_kernel(tmp_path, config={"kill_grace_s": 0.5}) as h:
        with anyio.fail_after(10):
            result = await h.call(
                "bash",
                {"command": "echo start; sleep 30", "description": "t", "timeout": 0.3},
                h.session(),
            )
    assert not result.is_error
    text = text_of(result)
    assert text.startswith("start\n")
    assert "[timed out after 0.3s]" in text


async def test_a_timeout_above_the_cap_is_refused(tmp_path: Path) -> None:
    async with shell_kernel(tmp_path, config={"max_timeout_s": 10}) as h:
        result = await h.call(
            "bash", {"command": "true", "description": "t", "timeout": 11}, h.session()
        )
    assert result.is_error
    assert result.error is not None
    assert result.error.code == "INVALID_ARGS"


async def test_cancelling_the_call_kills_the_whole_process_group(tmp_path: Path) -> None:
    printed: Heard[ShellOutput] = Heard()
    command = "echo $$; sleep 300 & sleep 300"
    async with shell_kernel(tmp_path, config={"kill_grace_s": 1, "live_interval_s": 0.05}) as h:
        h.ctx.on(SHELL_OUTPUT, printed)
        session = h.session()
        with anyio.fail_after(20):
            async with anyio.create_task_group() as group:
                group.start_soon(h.call, "bash", {"command": command, "description": "c"}, session)
                await printed.wait()
                pgid = int(printed.items[0].tail.split()[0])
                os.killpg(pgid, 0)  # the group is alive
                group.cancel_scope.cancel()
        assert live_members(pgid) == [], "every process of the group is dead"


async def test_long_output_is_capped_and_can_be_paged(tmp_path: Path) -> None:
    command = "python3 -c \"import sys; [print(f'line {i:06d}') for i in range(20000)]\""
    async with shell_kernel(tmp_path, config={"output_cap_bytes": 4096}) as h:
        session = h.session()
        result = await h.call("bash", {"command": command, "description": "many"}, session)
        assert result.meta is not None
        total = result.meta["bytes"]
        task_id = result.meta["taskId"]
        page = await h.call(
            "bash_output", {"task_id": task_id, "offset": 12 * 10000, "limit": 24}, session
        )
    text = text_of(result)
    assert total == 12 * 20000
    assert len(text) < 5000
    assert text.startswith("line 000000\n")
    assert text.rstrip().endswith("[exit code: 0]")
    assert "line 019999" in text
    assert "bytes omitted" in text
    assert text_of(page).startswith("line 010000\nline 010001\n")


async def test_a_background_task_reports_its_end(tmp_path: Path) -> None:
    ended: Heard[ShellTask] = Heard()
    async with shell_kernel(tmp_path) as h:
        h.ctx.on(SHELL_TASK_DONE, ended)
        session = h.session()
        started = await h.call(
            "bash",
            {
                "command": "echo working; echo finished",
                "description": "bg",
                "run_in_background": True,
            },
            session,
        )
        assert "Started background task bash_1" in text_of(started)
        with anyio.fail_after(10):
            await ended.wait()
        first = await h.call("bash_output", {"task_id": "bash_1"}, session)
        second = await h.call("bash_output", {"task_id": "bash_1"}, session)
        other = await h.call("bash_output", {"task_id": "bash_1"}, h.session())
    assert ended.items[0].exit_code == 0
    assert text_of(first) == "working\nfinished\n\n[exit code: 0]"
    assert text_of(second) == "(no new output)\n[exit code: 0]"
    assert other.is_error, "another session cannot read the task"


async def test_bash_kill_stops_a_background_task(tmp_path: Path) -> None:
    async with shell_kernel(tmp_path, config={"kill_grace_s": 1}) as h:
        session = h.session()
        await h.call(
            "bash",
            {"command": "sleep 300", "description": "bg", "run_in_background": True},
            session,
        )
        with anyio.fail_after(10):
            killed = await h.call("bash_kill", {"task_id": "bash_1"}, session)
    assert "Stopped bash_1" in text_of(killed)
    assert "[stopped on request]" in text_of(killed)
    assert "[killed by signal: SIGTERM]" in text_of(killed)
