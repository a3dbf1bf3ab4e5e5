"""The classification gate: curated README, index freshness (scripts/verify_rfc_classification.py).

Folder, placement and file-name rules come from the shared walker and are covered, for all
three gates, in test_rfc_walker.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from verify_rfc_classification import main

from .rfc_fixtures import README, rfc_text, run_gate, valid_tree, write

OK = "verify_rfc_classification: 3 RFC(s) classified; INDEX.md is fresh"
ROW_RULE = "index-shaped table row; the RFC list lives only in INDEX.md"


def test_sound_tree_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    valid_tree(tmp_path)
    assert run_gate(main, tmp_path, capsys) == (0, [OK])


@pytest.mark.parametrize(
    "row",
    [
        "| [Uniform format](implemented/process/2026-11-30-uniform-rfc-format.md) | 2026-11-30 |",
        "|[Multi-root](proposed/feature/2026-11-01-multi-root.md)|2026-11-01|",
        "| [Drop replay](./rejected/simplification/2026-10-15-drop-replay.md) |",
    ],
)
def test_index_row_in_readme_fails(
    row: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    valid_tree(tmp_path)
    write(tmp_path, "docs/rfc/README.md", f"{README}\n| Title | Date |\n|---|---|\n{row}\n")
    assert run_gate(main, tmp_path, capsys) == (
        1,
        [f"docs/rfc/README.md: line 7: {ROW_RULE}", "verify_rfc_classification: 1 violation(s)"],
    )


@pytest.mark.parametrize(
    "line",
    [
        "| `proposed/` | under discussion |",
        "| [pygls](https://pygls.readthedocs.io) | the server library |",
        "See [the format RFC](implemented/process/2026-11-30-uniform-rfc-format.md).",
        "- [Multi-root](proposed/feature/2026-11-01-multi-root.md)",
    ],
)
def test_curated_prose_and_other_tables_pass(
    line: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    valid_tree(tmp_path)
    write(tmp_path, "docs/rfc/README.md", f"{README}\n{line}\n")
    assert run_gate(main, tmp_path, capsys) == (0, [OK])


def test_missing_readme_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    valid_tree(tmp_path)
    (tmp_path / "docs/rfc/README.md").unlink()
    assert run_gate(main, tmp_path, capsys) == (
        1,
        [
            "docs/rfc/README.md: missing; the RFC contract lives here",
            "verify_rfc_classification: 1 violation(s)",
        ],
    )


def test_stale_index_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    valid_tree(tmp_path)
    write(tmp_path, "docs/rfc/implemented/testing/2026-12-01-replay.md", rfc_text("implemented"))
    assert run_gate(main, tmp_path, capsys) == (
        1,
        [
            "docs/rfc/INDEX.md: stale; regenerate it with "
            "`.venv/bin/python scripts/gen_rfc_index.py`",
            "verify_rfc_classification: 1 violation(s)",
        ],
    )


def test_missing_index_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    valid_tree(tmp_path)
    (tmp_path / "docs/rfc/INDEX.md").unlink()
    assert run_gate(main, tmp_path, capsys) == (
        1,
        [
            "docs/rfc/INDEX.md: missing; generate it with "
            "`.venv/bin/python scripts/gen_rfc_index.py`",
            "verify_rfc_classification: 1 violation(s)",
        ],
    )


def test_structural_errors_suppress_the_staleness_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    valid_tree(tmp_path)
    write(tmp_path, "docs/rfc/implemented/process/2026-12-01-New.md", rfc_text("implemented"))
    write(tmp_path, "docs/rfc/README.md", f"{README}\n| [x](proposed/feature/y.md) |\n")
    code, lines = run_gate(main, tmp_path, capsys)
    assert code == 1
    assert lines[1:] == [
        f"docs/rfc/README.md: line 5: {ROW_RULE}",
        "verify_rfc_classification: 2 violation(s)",
    ]
    assert lines[0].startswith("docs/rfc/implemented/process/2026-12-01-New.md: file name")
