"""The ``dsh/editor/*`` handlers in a real Neovim with real language servers beside dsh.

``ruff server`` (diagnostics, pulled) and ``jedi-language-server`` (definitions, references,
hovers, workspace symbols; it also pushes versioned diagnostics), both from the dev extra,
attach to a small Python project next to an in-process fake dsh server that negotiates
UTF-16 and sends the requests as the real server does (``editors/neovim/tests/editor_spec.lua``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from .nvim_runner import run_spec

pytestmark = pytest.mark.e2e

BIN = Path(sys.executable).parent

CASES = [
    "diagnostics of the version just written; none after the fix; a stale one never",
    "diagnostics of a document not loaded, and of the workspace",
    "definition, references, hover and symbols across files in UTF-16",
    "a push server without versions: its diagnostics describe the version last sent",
]


def language_servers() -> dict[str, str]:
    """``$DSH_RUFF_CMD`` and ``$DSH_JEDI_CMD`` for the spec: the dev extra's servers."""
    jedi = BIN / "jedi-language-server"
    if not jedi.exists():
        raise FileNotFoundError(f"{jedi} is missing: install the dev extra")
    return {
        "DSH_RUFF_CMD": json.dumps([sys.executable, "-m", "ruff", "server"]),
        "DSH_JEDI_CMD": json.dumps([str(jedi)]),
    }


@pytest.mark.parametrize("case", CASES)
def test_editor_requests(case: str, tmp_path: Path, nvim: str) -> None:
    run = run_spec(
        "editor_spec.lua", case, tmp_path, env=language_servers(), deadline=45, nvim=nvim
    )
    run.assert_passed()
