"""What the README tells a newcomer is true of the code and of ``.ci/run``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from dsh_lsp.session import default_sessions_dir

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CI = (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_default_session_folder_is_the_one_the_readme_names() -> None:
    assert "`~/.local/state/dsh-lsp/sessions` when `XDG_STATE_HOME` is unset" in README
    assert default_sessions_dir({}) == Path.home() / ".local" / "state" / "dsh-lsp" / "sessions"
    assert default_sessions_dir({"XDG_STATE_HOME": "/s"}) == Path("/s/dsh-lsp/sessions")


def test_configuration_names_every_settings_block() -> None:
    for key in ("edits.saveAfterTurn", '"edits": {"saveAfterTurn": false}', "permissions.edit"):
        assert key in README, key
    for section in ("## Troubleshooting", "## Uninstall", "## Supported systems"):
        assert section in README, section
    assert "HTTPS_PROXY" in README
    assert "DSH_LIVE_TESTS=1" in README


def test_ci_installs_nothing_into_the_system_and_cleans_up() -> None:
    # the one install is the documented, skippable Emacs tier (issue 18); luacheck is unpacked
    install = [line for line in CI.splitlines() if "apt-get install" in line]
    assert len(install) == 1
    assert "emacs-nox elpa-eglot" in install[0]
    assert 'if [ "${DSH_CI_EMACS:-1}" = 1 ]' in CI
    assert "DSH_CI_EMACS=0" in README
    assert "trap 'rm -rf \"$lua_tools\"' EXIT" in CI
    assert "Node 20+ and npm" in README


def test_the_scripted_server_help_describes_the_script_format() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dsh_lsp.testing.scripted_server", "--help"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    for part in ('{"responses": [', '"stream"', '"status": 429', "--cycle", "DEEPSEEK_BASE_URL"):
        assert part in result.stdout, part
