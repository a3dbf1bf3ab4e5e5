"""A real Emacs + eglot (Debian's ``emacs-nox`` and ``elpa-eglot``, the plugin-less client
nobody here wrote) drives the real ``dsh-lsp`` with the README's setup, in batch mode:
``dsh.prompt``, the permission answer, the edit landing in the buffer, a code action and a
cancel, checked from the buffer text (the spec's results), what the model was sent and the
session log. Emacs in batch mode is never idle, so eglot's idle timer never sends the
didChange of the agent's edit: the edit must still reach the model as applied (a slow but
correct client is trusted). Skipped when Emacs or eglot is missing (``.ci/run`` installs
them)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from dsh_lsp.testing import RecordedRequest, ScriptedResponse, ScriptedServer, completion

from ..neovim.nvim_runner import isolated_env
from ..tier import hanging, server_env, tool_call, tool_messages

pytestmark = pytest.mark.e2e

SPEC = Path(__file__).with_name("eglot_spec.el")
README = Path(__file__).resolve().parents[3] / "README.md"


def readme_eglot_block() -> str:
    """The README's tested eglot block (the elisp fence opening with ``;; Emacs eglot``)."""
    text = README.read_text(encoding="utf-8")
    start = text.index("```elisp\n;; Emacs eglot (tested)") + len("```elisp\n")
    return text[start : text.index("```", start)]


EMACS = shutil.which("emacs")


def _has_eglot() -> bool:
    if EMACS is None:
        return False
    probe = subprocess.run(
        [EMACS, "--batch", "-Q", "-l", str(SPEC.with_name("probe.el"))],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return probe.returncode == 0


if not _has_eglot():
    pytest.skip("emacs with eglot is not installed", allow_module_level=True)


def _run(
    case: str,
    tmp_path: Path,
    workspace: Path,
    model: ScriptedServer,
    script: Sequence[ScriptedResponse],
) -> dict[str, Any]:  # Any: the JSON the spec wrote
    model.enqueue(*script)
    readme_el = tmp_path / "readme-eglot.el"
    readme_el.write_text(readme_eglot_block(), encoding="utf-8")
    out = tmp_path / "result.json"
    log = tmp_path / "server.log"
    env = isolated_env(
        tmp_path / "home",
        {
            **server_env(tmp_path, workspace, model.base_url),
            "DSH_OUT": str(out),
            "DSH_CASE": case,
            "DSH_MODEL_ASKED": str(tmp_path / "model-asked"),
            "DSH_README_EL": str(readme_el),
        },
    )
    assert EMACS is not None
    done = subprocess.run(
        [EMACS, "--batch", "-Q", "-l", str(SPEC)],
        env=env,
        cwd=workspace,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=50,
        check=False,
    )
    tail = done.stderr[-3000:] + (
        "\n--- server.log ---\n" + log.read_text()[-3000:] if log.exists() else ""
    )
    assert out.exists(), f"emacs wrote no results (exit {done.returncode}):\n{tail}"
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))  # Any: JSON
    failed = [check for check in result["checks"] if check["ok"] is not True]
    assert not failed, f"{json.dumps(failed, indent=1)}\n{json.dumps(result['data'])}\n{tail}"
    return result


def _session_log(tmp_path: Path) -> str:
    return "\n".join(
        p.read_text(encoding="utf-8") for p in (tmp_path / "sessions").rglob("*") if p.is_file()
    )


def test_prompt_approval_and_an_edit_that_lands_in_the_buffer(
    tmp_path: Path, workspace: Path, model: ScriptedServer
) -> None:
    script = [
        tool_call("c1", "read", file_path="notes.txt"),
        tool_call("c2", "edit", file_path="notes.txt", old_string="beta", new_string="beta EDITED"),
        completion(text="Done.\n\nAll set."),
    ]
    result = _run("prompt, approve, edit", tmp_path, workspace, model, script)
    assert len(model.requests) == 3
    edit_result = tool_messages(model.requests[2])[-1]
    assert "Error" not in edit_result, (
        f"an edit eglot applied reached the model as failed: {edit_result}"
    )
    assert "replaced 1 occurrence" in edit_result
    assert (workspace / "notes.txt").read_text() == "alpha\nbeta\ngamma\n", "unsaved, not on disk"
    assert result["data"]["buffer"] == "alpha\nbeta EDITED\ngamma\n"
    log = _session_log(tmp_path)
    assert "replaced 1 occurrence" in log, "the session log records the applied edit"


def test_a_code_action_asks_about_the_selection(
    tmp_path: Path, workspace: Path, model: ScriptedServer
) -> None:
    _run("code action", tmp_path, workspace, model, [completion(text="It is the second line.")])
    assert "beta" in model.requests[0].body.decode("utf-8"), "the selection reached the model"


def test_cancel_stops_the_turn(tmp_path: Path, workspace: Path) -> None:
    asked = tmp_path / "model-asked"

    def note_request(_request: RecordedRequest) -> None:
        asked.touch()  # the spec cancels once this exists; None: the script answers

    with ScriptedServer(check=note_request) as model:
        _run("cancel", tmp_path, workspace, model, [hanging("Once")])
        assert model.wait_for_disconnect(5.0), "the cancelled model request was not closed"
