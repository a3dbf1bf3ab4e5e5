"""The classification gate: curated README, index freshness (scripts/verify_rfc_classification.py).

Folder, placement and file-name rules come from the shared walker and are covered, for all
three gates, in test_rfc_walker.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from verify_rfc_classification import lifecycle_target, main

from .rfc_fixtures import README, rfc_text, run_gate, valid_tree, write

OK = "verify_rfc_classification: 3 RFC(s) classified; INDEX.md is fresh"
README_PATH = "docs/rfc/README.md"
UNIFORM = "implemented/process/2026-11-30-uniform-rfc-format.md"
TAIL = "is an index entry; the RFC list lives only in INDEX.md"


def _row_rule(line: int, into: str = "implemented/") -> str:
    return f"{README_PATH}:{line}: readme-index: a table row linking into {into} {TAIL}"


def _item_rule(line: int, into: str = "implemented/") -> str:
    return (
        f"{README_PATH}:{line}: readme-index: a list item linking into {into} "
        f"with a date or status {TAIL}"
    )


def _readme(tmp_path: Path, extra: str) -> None:
    valid_tree(tmp_path)
    write(tmp_path, README_PATH, f"{README}\n{extra}\n")


def test_sound_tree_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    valid_tree(tmp_path)
    assert run_gate(main, tmp_path, capsys) == (0, [OK])


@pytest.mark.parametrize(
    ("row", "into"),
    [
        (f"| [Uniform format]({UNIFORM}) | 2026-11-30 |", "implemented/"),
        ("|[Multi-root](proposed/feature/2026-11-01-multi-root.md)|2026-11-01|", "proposed/"),
        ("| [Drop replay](./rejected/simplification/2026-10-15-drop-replay.md) |", "rejected/"),
    ],
)
def test_index_row_in_readme_fails(
    row: str, into: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _readme(tmp_path, f"| Title | Date |\n|---|---|\n{row}")
    assert run_gate(main, tmp_path, capsys) == (
        1,
        [_row_rule(7, into), "verify_rfc_classification: 1 violation(s)"],
    )


# The six shapes a first-cell regex missed; each is an index entry as a reader sees it.
SIX_SHAPES = {
    "date cell first": (f"| Date | Title |\n|---|---|\n| 2026-11-30 | [Uniform]({UNIFORM}) |", 7),
    "indented row": (f"| Title | Date |\n|---|---|\n   | [Uniform]({UNIFORM}) | 2026-11-30 |", 7),
    "repo-rooted link": (
        f"| Title | Date |\n|---|---|\n| [Uniform](/docs/rfc/{UNIFORM}) | 2026-11-30 |",
        7,
    ),
    "angle link": (f"| Title | Date |\n|---|---|\n| [Uniform](<{UNIFORM}>) | 2026-11-30 |", 7),
    "reference link": (
        f"| Title | Date |\n|---|---|\n| [Uniform][u] | 2026-11-30 |\n\n[u]: {UNIFORM}",
        7,
    ),
    "bullet list with date": (f"- [Uniform]({UNIFORM}) \u2014 2026-11-30", 5),
}


@pytest.mark.parametrize("shape", SIX_SHAPES)
def test_index_shapes_in_readme_fail(
    shape: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra, line = SIX_SHAPES[shape]
    _readme(tmp_path, extra)
    rule = _item_rule(line) if shape.startswith("bullet") else _row_rule(line)
    assert run_gate(main, tmp_path, capsys) == (
        1,
        [rule, "verify_rfc_classification: 1 violation(s)"],
    )


@pytest.mark.parametrize(
    "item",
    [
        f"- [Uniform]({UNIFORM}) (implemented)",
        f"* Status: implemented \u2014 [Uniform]({UNIFORM})",
        f"1. 2026-11-30: [Uniform]({UNIFORM})",
        f"- [Uniform](https://example.org/o/r/blob/main/docs/rfc/{UNIFORM}), 2026-11-30",
        f'- <a href="{UNIFORM}">Uniform</a> 2026-11-30',
        f"- [Uniform](../rfc/{UNIFORM}) `2026-11-30`",
        f"- [Uniform]({UNIFORM.replace('process/', 'process%2F')}) \u2014 implemented",
    ],
    ids=["status word", "status first", "ordered", "full url", "html link", "dot-dot", "escaped"],
)
def test_index_like_list_items_fail_whatever_the_link_syntax(
    item: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _readme(tmp_path, item)
    assert run_gate(main, tmp_path, capsys) == (
        1,
        [_item_rule(5), "verify_rfc_classification: 1 violation(s)"],
    )


def test_every_index_line_is_reported_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _readme(
        tmp_path,
        f"- [A]({UNIFORM}) 2026-11-30\n- [B](proposed/feature/2026-11-01-multi-root.md) proposed",
    )
    assert run_gate(main, tmp_path, capsys) == (
        1,
        [_item_rule(5), _item_rule(6, "proposed/"), "verify_rfc_classification: 2 violation(s)"],
    )


def test_html_table_row_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _readme(tmp_path, f'<table>\n<tr><td><a href="{UNIFORM}">Uniform</a></td></tr>\n</table>')
    assert run_gate(main, tmp_path, capsys) == (
        1,
        [_row_rule(6), "verify_rfc_classification: 1 violation(s)"],
    )


@pytest.mark.parametrize(
    "line",
    [
        "| `proposed/` | under discussion |",
        "| [pygls](https://pygls.readthedocs.io) | the server library |",
        f"See [the format RFC]({UNIFORM}).",
        "- [Multi-root](proposed/feature/2026-11-01-multi-root.md)",
        "- `implemented/`: the decision is in the code (2026-11-30).",
        "- [INDEX.md](INDEX.md) lists every RFC, proposed or implemented.",
        f"    | [Uniform]({UNIFORM}) | 2026-11-30 |",
        f"```\n- [Uniform]({UNIFORM}) 2026-11-30\n```",
        f"<!-- | [Uniform]({UNIFORM}) | 2026-11-30 | -->",
    ],
    ids=[
        "folder table",
        "external table",
        "prose link",
        "bare list link",
        "list without link",
        "index link",
        "indented code",
        "fenced",
        "comment",
    ],
)
def test_curated_prose_and_other_tables_pass(
    line: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _readme(tmp_path, line)
    assert run_gate(main, tmp_path, capsys) == (0, [OK])


@pytest.mark.parametrize(
    ("href", "target"),
    [
        (UNIFORM, "implemented"),
        (f"./{UNIFORM}", "implemented"),
        (f"/docs/rfc/{UNIFORM}", "implemented"),
        (f"../rfc/{UNIFORM}", "implemented"),
        (f"../../docs/rfc/{UNIFORM}", "implemented"),
        ("proposed/", "proposed"),
        ("rejected", "rejected"),
        (f"https://github.com/o/r/blob/main/docs/rfc/{UNIFORM}#problem", "implemented"),
        ("INDEX.md", None),
        ("#the-file-format", None),
        ("/README.md", None),
        ("../architecture.md", None),
        ("https://example.org/implemented/x.md", None),
    ],
)
def test_link_targets_resolve_against_the_rfc_folder(href: str, target: str | None) -> None:
    assert lifecycle_target(href) == target


def test_missing_readme_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    valid_tree(tmp_path)
    (tmp_path / README_PATH).unlink()
    assert run_gate(main, tmp_path, capsys) == (
        1,
        [
            f"{README_PATH}: readme-missing: the RFC contract lives here",
            "verify_rfc_classification: 1 violation(s)",
        ],
    )


def test_stale_index_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    valid_tree(tmp_path)
    write(tmp_path, "docs/rfc/implemented/testing/2026-12-01-replay.md", rfc_text("implemented"))
    assert run_gate(main, tmp_path, capsys) == (
        1,
        [
            "docs/rfc/INDEX.md: index-stale: regenerate it with "
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
            "docs/rfc/INDEX.md: index-missing: generate it with "
            "`.venv/bin/python scripts/gen_rfc_index.py`",
            "verify_rfc_classification: 1 violation(s)",
        ],
    )


def test_structural_errors_suppress_the_staleness_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    valid_tree(tmp_path)
    write(tmp_path, "docs/rfc/implemented/process/2026-12-01-New.md", rfc_text("implemented"))
    write(tmp_path, README_PATH, f"{README}\n| [x](proposed/feature/y.md) |\n")
    code, lines = run_gate(main, tmp_path, capsys)
    assert code == 1
    assert lines[1:] == [_row_rule(5, "proposed/"), "verify_rfc_classification: 2 violation(s)"]
    assert lines[0].startswith("docs/rfc/implemented/process/2026-12-01-New.md: file-name:")
