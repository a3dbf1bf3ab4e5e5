"""RFC classification gate: placement, names, index freshness, curated README (repository tooling).

Usage: ``.venv/bin/python scripts/verify_rfc_classification.py [--root REPO]``. Reports, as
``<path>[:<line>]: <rule>: <detail>`` lines with exit 1:

- every walker violation (unknown lifecycle or class folders, misplaced or hidden files,
  bad names);
- ``readme-missing``: no docs/rfc/README.md;
- ``readme-index``: a line of the README, read as CommonMark, that lists RFCs the way an
  index does: a table row (or a ``|``-led line) that links into a lifecycle folder, or a list
  item that links into one and carries a date or a status word. A link counts whatever its
  syntax: inline, ``<angle>``, reference-style, autolink, raw ``<a href>``, relative to
  docs/rfc/, repo-rooted (``/docs/rfc/...``) or a full URL. The RFC list lives only in the
  generated INDEX.md;
- ``index-missing``, ``index-stale``: INDEX.md (checked only when the tree itself is sound).
"""

from __future__ import annotations

import posixpath
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote, urlsplit

from rfc_gate_cli import gate_parser, report
from rfc_index import render_index, stale_index
from rfc_markdown import Entry, parse
from rfc_walker import LIFECYCLES, README_NAME, RFC_DIR, Violation, walk

README_PATH = f"{RFC_DIR}/{README_NAME}"
_LIFECYCLE_PATH = re.compile(rf"(?:^|/){re.escape(RFC_DIR)}/({'|'.join(LIFECYCLES)})(?:/|$)")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_STATUS_WORD = re.compile(rf"\b(?:{'|'.join(LIFECYCLES)}|status)\b", re.IGNORECASE)
_PIPE_LED = re.compile(r"^[\s>]*\|")


def lifecycle_target(href: str) -> str | None:
    """The lifecycle folder a README link points into, or ``None``.

    Relative links resolve against docs/rfc/, ``/``-led ones against the repository root,
    and a full URL counts when its path runs through ``docs/rfc/<lifecycle>/``.
    """
    parts = urlsplit(unquote(href.strip()))
    if parts.scheme or parts.netloc:
        path = parts.path
    elif parts.path.startswith("/"):
        path = posixpath.normpath(parts.path.lstrip("/"))
    elif parts.path:
        path = posixpath.normpath(posixpath.join(RFC_DIR, parts.path))
    else:
        return None
    match = _LIFECYCLE_PATH.search(path)
    return match.group(1) if match else None


def _index_shape(entry: Entry) -> str | None:
    """Why ``entry`` reads as an index line, or ``None``."""
    targets = sorted({t for t in map(lifecycle_target, entry.hrefs) if t is not None})
    if not targets:
        return None
    into = ", ".join(f"{target}/" for target in targets)
    tabular = entry.kind == "table row" or (
        entry.kind in ("line", "html") and _PIPE_LED.match(entry.source) is not None
    )
    if tabular or (entry.kind == "html" and re.search(r"<t[rd]\b", entry.source, re.I)):
        return f"a table row linking into {into}"
    listed = entry.kind == "list item" or (
        entry.kind == "html" and re.search(r"<li\b", entry.source, re.I)
    )
    if listed and (_DATE.search(entry.text) or _STATUS_WORD.search(entry.text)):
        return f"a list item linking into {into} with a date or status"
    return None


def readme_violations(root: Path) -> list[Violation]:
    """Violations of the curated README: missing, or carrying index-shaped lines.

    Raises ``OSError`` for I/O failures other than a missing file, ``UnicodeDecodeError`` for
    a README that is not UTF-8.
    """
    path = root / README_PATH
    if not path.is_file():
        return [Violation(path=README_PATH, rule="readme-missing: the RFC contract lives here")]
    flagged: dict[int, str] = {}
    for entry in parse(path.read_text(encoding="utf-8")).entries:
        shape = _index_shape(entry)
        if shape is not None and entry.line not in flagged:
            flagged[entry.line] = shape
    return [
        Violation(
            path=README_PATH,
            rule=f"readme-index: {shape} is an index entry; the RFC list lives only in INDEX.md",
            line=line,
        )
        for line, shape in sorted(flagged.items())
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
