"""The language server started by hand on a terminal (a pty): it says what it is and how to
stop it, and Ctrl-C and SIGTERM end it cleanly, as on pipes; a second Ctrl-C changes
nothing. The session/new cwd check is here too: a cwd that is not a folder is -32602."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from dsh_lsp.server.serve import TERMINAL_NOTICE
from tests.server.support import ModelScript, raw_server, server_env
from tests.terminal import Terminal

NOTICE = TERMINAL_NOTICE.strip()
READY = "stop signals are handled from here on"


def _terminal(tmp_path: Path, *args: str) -> Terminal:
    env = server_env("http://127.0.0.1:9", tmp_path / "state")
    return Terminal([sys.executable, "-m", "dsh_lsp", *args], env=env, cwd=str(tmp_path))


def test_on_a_terminal_it_says_it_speaks_lsp_and_ctrl_c_stops_it(tmp_path: Path) -> None:
    with _terminal(tmp_path, "--log-level", "debug") as term:
        term.read_until(NOTICE)
        assert "Language Server Protocol" in NOTICE
        assert "Ctrl-C" in NOTICE
        term.read_until(READY)
        term.keys("\x03")
        term.keys("\x03")
        assert term.wait() == 0, term.output
    assert "Traceback" not in term.output
    assert "KeyboardInterrupt" not in term.output


def test_ctrl_c_while_it_starts_exits_cleanly(tmp_path: Path) -> None:
    with _terminal(tmp_path) as term:
        term.read_until(NOTICE)
        term.keys("\x03")
        # 130 while the command line still loads the server ("interrupted"), 0 once it runs;
        # rarely the interpreter reports the interrupt itself (-SIGINT) after the clean stop.
        assert term.wait() in (0, 130, -signal.SIGINT), term.output
    assert "Traceback" not in term.output


def test_sigterm_on_a_terminal_exits_0(tmp_path: Path) -> None:
    with _terminal(tmp_path, "--log-level", "debug") as term:
        term.read_until(READY)
        term.signal(signal.SIGTERM)
        assert term.wait() == 0, term.output
    assert "Traceback" not in term.output


@pytest.mark.asyncio
async def test_session_new_with_a_cwd_that_is_not_a_folder_is_invalid_params(
    model: ModelScript, tmp_path: Path
) -> None:
    a_file = tmp_path / "file.txt"
    a_file.write_text("x", encoding="utf-8")
    async with raw_server(model, tmp_path) as server:
        await server.initialize(tmp_path)
        for index, cwd in enumerate((str(tmp_path / "missing"), str(a_file))):
            params = {"cwd": cwd}
            await server.send(
                {"jsonrpc": "2.0", "id": index, "method": "dsh/session/new", "params": params}
            )
            answer = await server.response(index)
            assert answer["error"]["code"] == -32602, answer
            assert "params.cwd" in answer["error"]["message"]
            assert cwd in answer["error"]["message"]
        params = {"cwd": str(tmp_path)}
        await server.send(
            {"jsonrpc": "2.0", "id": "ok", "method": "dsh/session/new", "params": params}
        )
        assert "sessionId" in (await server.response("ok"))["result"]
        await server.send({"jsonrpc": "2.0", "id": "end", "method": "shutdown"})
        assert "result" in await server.response("end")
