"""RFC classification gate: placement, names, index freshness, curated README (repository tooling).

Usage: ``.venv/bin/python scripts/verify_rfc_classification.py [--root REPO]``. Reports, as
``<path>: <rule>`` lines with exit 1:

- every walker violation (unknown lifecycle or class folders, misplaced files, bad names);
- a missing docs/rfc/README.md, and any line in it shaped like an index row
  (``| [title](implemented/...)``): the RFC list lives only in the generated INDEX.md;
- a missing or stale INDEX.md (checked only when the tree itself is sound).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path

from rfc_gate_cli import gate_parser, report
from rfc_index import render_index, stale_index
from rfc_walker import README_NAME, RFC_DIR, Violation, walk

README_PATH = f"{RFC_DIR}/{README_NAME}"
_INDEX_ROW = re.compile(r"^\|\s*\[[^\]]+\]\((?:\./)?(?:proposed|implemented|rejected)/")


def readme_violations(root: Path) -> list[Violation]:
    """Violations of the curated README: missing, or carrying index-shaped table rows.

    Raises ``OSError`` for I/O failures other than a missing file, ``UnicodeDecodeError`` for
    a README that is not UTF-8.
    """
    path = root / README_PATH
    if not path.is_file():
        return [Violation(path=README_PATH, rule="missing; the RFC contract lives here")]
    return [
        Violation(
            path=README_PATH,
            rule=f"line {number}: index-shaped table row; the RFC list lives only in INDEX.md",
        )
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1)
        if _INDEX_ROW.match(line)
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the classification gate; returns the exit code (0 clean, 1 violations)."""
    args = gate_parser("Check RFC placement, names, INDEX.md and README.md.").parse_args(argv)
    tree = walk(args.root)
    violations = [*tree.violations, *readme_violations(args.root)]
    if not tree.violations:
        stale = stale_index(args.root, render_index(tree.rfcs))
        if stale is not None:
            violations.append(stale)
    return report(
        "verify_rfc_classification",
        violations,
        f"{len(tree.rfcs)} RFC(s) classified; INDEX.md is fresh",
    )


if __name__ == "__main__":
    sys.exit(main())
