"""Fixtures the real-editor tiers share: a small workspace and the scripted model server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh_lsp.testing import ScriptedServer


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    (root / "notes.txt").write_text("alpha\nbeta\ngamma\n", encoding="utf-8")
    return root


@pytest.fixture
def model() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        yield server
