"""``python -m dsh_lsp`` as a subprocess for the command-line tests: an environment cut off
from the user's DeepSeek settings and state, pointed at a scripted model server."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path


def dsh_env(
    tmp_path: Path,
    base_url: str,
    *,
    key: str | None = "dummy-key",
    strip: tuple[str, ...] = ("DEEPSEEK_", "XDG_STATE_HOME"),
) -> dict[str, str]:
    """This process's environment without the variables starting with one of *strip*, the
    model at *base_url* with API key *key* (none when None) and its state under *tmp_path*."""
    env = {name: value for name, value in os.environ.items() if not name.startswith(strip)}
    env["DEEPSEEK_BASE_URL"] = base_url
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    if key is not None:
        env["DEEPSEEK_API_KEY"] = key
    return env


def run_dsh(
    args: Sequence[str],
    env: Mapping[str, str],
    *,
    cwd: Path | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """``python -m dsh_lsp *args`` to its end (*timeout* seconds at the most), no stdin,
    output captured."""
    return subprocess.run(
        [sys.executable, "-m", "dsh_lsp", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
        check=False,
    )
