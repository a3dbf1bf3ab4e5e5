"""The Neovim versions the plugin's tests run on: every test taking ``nvim`` runs once on a
real 0.11 and once on a real 0.12 (see ``nvim_runner.NEOVIMS``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .nvim_runner import NEOVIMS, nvim_binary


@pytest.fixture(scope="session", params=sorted(NEOVIMS))
def nvim(request: pytest.FixtureRequest) -> str:
    """The path of the ``nvim`` binary of one tested version (checked by ``--version``)."""
    version: str = request.param
    return nvim_binary(version)


@pytest.fixture
def draft(workspace: Path) -> Path:
    """The empty ``draft.txt`` in the editors' workspace: the buffer the user of a typing test
    types into (``nvim_ui.OPEN_NOTES_AND_DRAFT`` opens it). Modules take it with
    ``pytest.mark.usefixtures("draft")``."""
    path = workspace / "draft.txt"
    path.write_text("", encoding="utf-8")
    return path
