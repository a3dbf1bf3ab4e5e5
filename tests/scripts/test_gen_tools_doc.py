"""docs/tools.md generation from the registry and its freshness check (scripts/gen_tools_doc.py)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from gen_tools_doc import DOC_PATH, collect, main, render

REPO = Path(__file__).resolve().parents[2]


def test_the_repository_page_is_fresh(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(REPO), "--check"]) == 0
    assert "docs/tools.md is up to date" in capsys.readouterr().out


def test_check_fails_on_missing_or_stale_pages_and_generation_fixes_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ["--root", str(tmp_path)]
    assert main([*root, "--check"]) == 1
    assert "docs/tools.md: stale" in capsys.readouterr().out
    assert main(root) == 0
    assert main([*root, "--check"]) == 0
    page = tmp_path / DOC_PATH
    page.write_text(page.read_text().replace("Regular expression", "Regex"))
    assert main([*root, "--check"]) == 1
    assert main(root) == 0
    assert "wrote docs/tools.md" in capsys.readouterr().out
    assert main(root) == 0
    assert "unchanged" in capsys.readouterr().out


def test_the_page_lists_every_registered_tool_and_parameter() -> None:
    snapshot = anyio.run(collect)
    page = render(snapshot)
    for schema in snapshot.schemas:
        assert f"\n## {schema.name}\n" in page
        assert f"Prompt section `tool:{schema.name}`" in page
    assert "| [`read`](#read) | yes |" in page
    assert "| [`write`](#write) | no |" in page
    assert "| `file_path` | string | yes | The file or directory to read |" in page
    assert "| `edits` | array of object | yes | The replacements, applied in order |" in page
    assert (
        "| `edits[].replace_all` | boolean | no | Replace every occurrence (default `false`) |"
        in page
    )
