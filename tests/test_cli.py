"""The command line: ``dsh-lsp --version`` and ``python -m dsh_lsp --version``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import get_args

import pytest


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL, check=False
    )


def test_module_version_prints_distribution_version() -> None:
    result = _run([sys.executable, "-m", "dsh_lsp", "--version"])
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"dsh-lsp {version('dsh-lsp')}\n"


def test_console_script_version_matches_module() -> None:
    script = Path(sys.executable).with_name("dsh-lsp")
    found = str(script) if script.exists() else shutil.which("dsh-lsp")
    if found is None:
        pytest.fail("the dsh-lsp console script is not installed next to the interpreter")
    result = _run([found, "--version"])
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"dsh-lsp {version('dsh-lsp')}\n"


def test_unknown_option_is_a_usage_error_on_stderr() -> None:
    result = _run([sys.executable, "-m", "dsh_lsp", "--no-such-option"])
    assert result.returncode == 2
    assert result.stdout == ""
    assert "unrecognized arguments: --no-such-option" in result.stderr


def test_version_and_help_load_no_layer() -> None:
    probe = (
        "import sys\n"
        "import dsh_lsp.__main__ as cli\n"
        "for argv in (['--version'], ['--help'], ['run', '--help']):\n"
        "    try:\n"
        "        cli.main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('dsh_lsp.')"
        " or m.split('.')[0] in ('pydantic', 'pygls', 'lsprotocol', 'httpx', 'anyio')))\n"
    )
    result = _run([sys.executable, "-c", probe])
    assert result.returncode == 0, result.stderr
    assert (
        result.stdout.splitlines()[-1] == "['dsh_lsp.__main__', 'dsh_lsp.cli', 'dsh_lsp.cli.entry']"
    )


def test_the_choices_are_the_servers() -> None:
    from dsh_lsp.cli.entry import EDIT_LEVELS, LEVELS, LOG_LEVELS, REASONING_EFFORTS, THINKING
    from dsh_lsp.llm.deepseek import ReasoningEffort, Thinking
    from dsh_lsp.server import LogLevel
    from dsh_lsp.server.settings import EditPolicy, ReadOutsidePolicy, ShellPolicy

    assert get_args(LogLevel) == LOG_LEVELS
    assert get_args(Thinking) == THINKING
    assert get_args(ReasoningEffort) == REASONING_EFFORTS
    assert set(get_args(EditPolicy)) == set(EDIT_LEVELS)
    assert get_args(ShellPolicy) == LEVELS
    assert get_args(ReadOutsidePolicy) == LEVELS


def test_run_takes_the_model_timeouts_and_the_server_a_message_size_limit() -> None:
    from dsh_lsp.cli import build_parser
    from dsh_lsp.cli.runner import settings_from_flags

    args = build_parser().parse_args(
        ["--max-message-bytes", "1024", "run", "hi", "--first-byte-timeout", "5"]
    )
    assert args.max_message_bytes == 1024
    assert args.timeout_connect is None
    assert settings_from_flags(args)["model"] == {"timeouts": {"firstByte": 5.0}}
