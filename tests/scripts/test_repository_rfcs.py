"""This repository's docs/rfc passes all three gates, run exactly as CI runs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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


def test_first_rfc_records_the_format_decision() -> None:
    rfc = REPO / "docs/rfc/implemented/process/2026-11-30-uniform-rfc-format.md"
    assert rfc.read_text(encoding="utf-8").startswith("# RFC: ")


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
