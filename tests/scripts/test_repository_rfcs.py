"""This repository's docs/rfc passes all three gates, run exactly as CI runs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from rfc_markdown import Heading, parse
from verify_rfc_format import GRANDFATHER_COMMENT

from .rfc_fixtures import rfc_text, write

REPO = Path(__file__).resolve().parents[2]
GATES = (
    ("scripts/verify_rfc_format.py",),
    ("scripts/gen_rfc_index.py", "--check"),
    ("scripts/verify_rfc_classification.py",),
)


def _run(args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
        check=False,
    )


@pytest.mark.parametrize("args", GATES, ids=lambda args: " ".join(args))
def test_repository_passes_gate(args: tuple[str, ...]) -> None:
    result = _run(args)
    assert (result.returncode, result.stderr) == (0, ""), result.stdout


PROCESS = REPO / "docs/rfc/implemented/process"


def _section(path: Path, title: str) -> str:
    """The rendered text of section ``## <title>`` of the RFC at ``path``, lines joined."""
    doc = parse(path.read_text(encoding="utf-8"))
    starts = [node.line for node in doc.nodes if isinstance(node, Heading) and node.level == 2]
    (start,) = [
        node.line
        for node in doc.nodes
        if isinstance(node, Heading) and (node.level, node.text) == (2, title)
    ]
    end = min((line for line in starts if line > start), default=len(doc.lines) + 1)
    return " ".join(t.text for t in doc.text_lines if start < t.line < end)


def test_first_rfc_records_the_format_decision() -> None:
    rfc = PROCESS / "2026-11-30-uniform-rfc-format.md"
    assert rfc.read_text(encoding="utf-8").startswith("# RFC: ")


def test_grandfather_deviation_is_on_the_record() -> None:
    """We keep no grandfather comment; the uniform-format RFC must keep saying so, and why."""
    alternatives = _section(PROCESS / "2026-11-30-uniform-rfc-format.md", "Alternatives considered")
    for phrase in (
        "grandfather comment",
        "date fence",
        "deliberately differ from the harness",
        "no record predates it",
        "`grandfather-comment`",
    ):
        assert phrase in alternatives
    for rfc in REPO.glob("docs/rfc/*/*/*.md"):
        assert GRANDFATHER_COMMENT not in rfc.read_text(encoding="utf-8")


def test_parser_choice_is_on_the_record() -> None:
    rfc = PROCESS / "2026-12-01-rfc-gates-read-commonmark.md"
    assert "markdown-it-py" in _section(rfc, "Decision")
    assert "commonmark.py" in _section(rfc, "Alternatives considered")


def test_script_reports_violations_and_exit_code(tmp_path: Path) -> None:
    write(tmp_path, "docs/rfc/README.md", "# RFCs\n")
    rel = "docs/rfc/implemented/process/2026-11-30-x.md"
    write(tmp_path, rel, rfc_text("implemented").replace("## Consequences", "## Outcome"))
    result = _run(("scripts/verify_rfc_format.py", "--root", str(tmp_path)))
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout.splitlines() == [
        f'{rel}: required-section: missing "## Consequences" (required in implemented/)',
        "verify_rfc_format: 1 violation(s)",
    ]
