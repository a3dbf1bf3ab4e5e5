"""The RFC walker's structural rules, as every gate reports them (scripts/rfc_walker.py)."""

from __future__ import annotations

from pathlib import Path

import gen_rfc_index
import pytest
import verify_rfc_classification
import verify_rfc_format
from rfc_walker import HIDDEN_RULE, NAME_RULE, TITLE_RULE, walk

from .rfc_fixtures import Gate, rfc_text, run_gate, valid_tree, write

GATES: dict[str, Gate] = {
    "verify_rfc_format": verify_rfc_format.main,
    "gen_rfc_index": gen_rfc_index.main,
    "verify_rfc_classification": verify_rfc_classification.main,
}
REFUSAL = "gen_rfc_index: refusing to render the index of a tree with structural errors"
IMPL = "docs/rfc/implemented/process"

# (file to add to a sound tree, its content, the exact report line)
STRUCTURE_CASES: dict[str, tuple[str, str | bytes, str]] = {
    "unknown lifecycle": (
        "docs/rfc/accepted/process/2026-11-30-x.md",
        rfc_text("implemented"),
        "docs/rfc/accepted/: unknown-lifecycle: folder is not a lifecycle "
        "(expected one of: proposed, implemented, rejected)",
    ),
    "unknown class": (
        "docs/rfc/implemented/refactor/2026-11-30-x.md",
        rfc_text("implemented"),
        "docs/rfc/implemented/refactor/: unknown-class: folder is not a class (expected one of: "
        "feature, bug-fix, simplification, architecture, process, testing)",
    ),
    "file directly in lifecycle": (
        "docs/rfc/implemented/2026-11-30-x.md",
        rfc_text("implemented"),
        "docs/rfc/implemented/2026-11-30-x.md: "
        "misplaced-file: RFCs sit in a class folder: implemented/<class>/<file>",
    ),
    "nested folder": (
        f"{IMPL}/old/2026-11-30-x.md",
        rfc_text("implemented"),
        f"{IMPL}/old/: nested-folder: RFCs sit directly in implemented/process/",
    ),
    "stray root file": (
        "docs/rfc/NOTES.md",
        "# Notes\n",
        "docs/rfc/NOTES.md: stray-file: only README.md and INDEX.md sit at the RFC root",
    ),
    "impossible date": (
        f"{IMPL}/2026-02-30-leap.md",
        rfc_text("implemented"),
        f"{IMPL}/2026-02-30-leap.md: file-date: 2026-02-30 in the file name is not a calendar date",
    ),
    "not utf-8": (
        f"{IMPL}/2026-11-30-latin.md",
        "# RFC: Caf\u00e9\n".encode("latin-1"),
        f"{IMPL}/2026-11-30-latin.md: not-utf8: the file is not valid UTF-8",
    ),
}
# Hidden entries at every depth the walker reads: no gate and no index would ever see them.
HIDDEN_CASES = (
    (f"{IMPL}/.2026-11-30-draft.md.swp", b"\x00\xff", f"{IMPL}/.2026-11-30-draft.md.swp"),
    (f"{IMPL}/.2026-11-30-hidden.md", rfc_text("implemented"), f"{IMPL}/.2026-11-30-hidden.md"),
    ("docs/rfc/proposed/.gitkeep", "", "docs/rfc/proposed/.gitkeep"),
    ("docs/rfc/.DS_Store", b"\x00", "docs/rfc/.DS_Store"),
    ("docs/rfc/.drafts/2026-11-30-x.md", rfc_text("proposed"), "docs/rfc/.drafts/"),
    (
        "docs/rfc/implemented/.archive/2026-11-30-x.md",
        rfc_text("implemented"),
        "docs/rfc/implemented/.archive/",
    ),
    (f"{IMPL}/.old/2026-11-30-x.md", rfc_text("implemented"), f"{IMPL}/.old/"),
)
STRUCTURE_CASES.update(
    {
        f"hidden {reported}": (rel, content, f"{reported}: {HIDDEN_RULE}")
        for rel, content, reported in HIDDEN_CASES
    }
)
BAD_NAMES = (
    "uniform-rfc-format.md",
    "2026-11-30-Uniform.md",
    "2026-11-30-uniform_format.md",
    "2026-11-30-uniform--format.md",
    "2026-11-30-.md",
    "26-11-30-uniform.md",
    "2026-11-30-uniform.markdown",
    "2026-11-30-uniform.txt",
)
BAD_TITLES = (
    "# Uniform format",
    "#RFC: Uniform format",
    "# RFC:  Uniform format",
    "## RFC: Uniform format",
    "\n# RFC: Uniform format",
    "",
)
STRUCTURE_CASES.update(
    {
        f"name {name}": (f"{IMPL}/{name}", rfc_text("implemented"), f"{IMPL}/{name}: {NAME_RULE}")
        for name in BAD_NAMES
    }
)
_UNTITLED = rfc_text("implemented").split("\n", 1)[1]
STRUCTURE_CASES.update(
    {
        f"title {first!r}": (
            f"{IMPL}/2026-11-30-bad-title.md",
            f"{first}\n{_UNTITLED}",
            f"{IMPL}/2026-11-30-bad-title.md:1: {TITLE_RULE}",
        )
        for first in BAD_TITLES
    }
)


def _expected(gate: str, line: str) -> list[str]:
    prefix = [REFUSAL] if gate == "gen_rfc_index" else []
    return [*prefix, line, f"{gate}: 1 violation(s)"]


@pytest.mark.parametrize("gate", GATES)
@pytest.mark.parametrize("case", STRUCTURE_CASES)
def test_structure_violation_is_reported_by_every_gate(
    gate: str, case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    valid_tree(tmp_path)
    rel, content, line = STRUCTURE_CASES[case]
    write(tmp_path, rel, content)
    assert run_gate(GATES[gate], tmp_path, capsys) == (1, _expected(gate, line))


@pytest.mark.parametrize("gate", GATES)
def test_missing_rfc_folder_is_reported(
    gate: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = run_gate(GATES[gate], tmp_path, capsys)
    assert code == 1
    assert "docs/rfc/: rfc-folder: missing" in lines


def test_order_is_lifecycle_class_name(tmp_path: Path) -> None:
    valid_tree(tmp_path)
    write(tmp_path, f"{IMPL}/2026-11-29-earlier.md", rfc_text("implemented", "Earlier"))
    write(
        tmp_path,
        "docs/rfc/implemented/architecture/2026-12-01-later.md",
        rfc_text("implemented", "Later"),
    )
    tree = walk(tmp_path)
    assert tree.violations == ()
    assert [rfc.path for rfc in tree.rfcs] == [
        "docs/rfc/proposed/feature/2026-11-01-multi-root.md",
        "docs/rfc/implemented/architecture/2026-12-01-later.md",
        f"{IMPL}/2026-11-29-earlier.md",
        f"{IMPL}/2026-11-30-uniform-rfc-format.md",
        "docs/rfc/rejected/simplification/2026-10-15-drop-replay.md",
    ]
    earlier = tree.rfcs[2]
    assert (earlier.lifecycle, earlier.rfc_class, earlier.date, earlier.title) == (
        "implemented",
        "process",
        "2026-11-29",
        "Earlier",
    )
    assert earlier.index_link == "implemented/process/2026-11-29-earlier.md"


def test_title_drops_trailing_whitespace(tmp_path: Path) -> None:
    write(tmp_path, f"{IMPL}/2026-11-30-x.md", "# RFC: Spaced   title  \t\n")
    (rfc,) = walk(tmp_path).rfcs
    assert rfc.title == "Spaced   title"
