"""RFC format gate: checks the in-file format of every RFC (repository tooling, stdlib only).

Usage: ``.venv/bin/python scripts/verify_rfc_format.py [--root REPO]``. Prints each violation
as ``<path>: <rule>`` (structural walker violations included) and exits 1 when there are any.
It only checks; it never rewrites a file. The rules are the contract in docs/rfc/README.md:

- lines 1-4 are ``# RFC: <title>``, blank, the Status line for the lifecycle folder, blank;
- no other line starts with ``Status:``;
- the first ``## `` section is ``## Problem``;
- each lifecycle has its required sections (``Alternatives considered`` in all three);
- ``implemented/`` has no proposal-era sections (Proposal, Plan, Migration plan,
  Acceptance criteria; case-insensitive).

Headings and Status lines are matched line by line with no code-fence awareness.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from rfc_gate_cli import gate_parser, report
from rfc_walker import RfcFile, Violation, walk

_STATUS_PATTERNS: dict[str, tuple[re.Pattern[str], str]] = {
    "proposed": (re.compile(r"^Status: proposed$"), '"Status: proposed"'),
    "implemented": (re.compile(r"^Status: implemented$"), '"Status: implemented"'),
    "rejected": (
        re.compile(r"^Status: rejected \u2014 \S.*$"),
        '"Status: rejected \u2014 <why>" (em dash U+2014, one space each side)',
    ),
}
REQUIRED_SECTIONS: dict[str, tuple[str, ...]] = {
    "proposed": ("Proposal", "Alternatives considered", "Acceptance criteria", "Risks"),
    "implemented": ("Decision", "Alternatives considered", "Consequences"),
    "rejected": ("Proposal", "Alternatives considered"),
}
_PROPOSAL_ERA = re.compile(
    r"^## (?:Proposal|Plan|Migration plan|Acceptance criteria)\b", re.IGNORECASE
)
_STATUS_LINE = 3


def _line(lines: Sequence[str], number: int) -> str | None:
    return lines[number - 1] if number <= len(lines) else None


def _found(value: str | None) -> str:
    return "end of file" if value is None else f'"{value}"'


def _must_be_empty(lines: Sequence[str], number: int) -> list[str]:
    value = _line(lines, number)
    return [] if value == "" else [f"line {number} must be empty (found {_found(value)})"]


def _status_rule(rfc: RfcFile) -> list[str]:
    pattern, expected = _STATUS_PATTERNS[rfc.lifecycle]
    value = _line(rfc.lines, _STATUS_LINE)
    if value is not None and pattern.fullmatch(value):
        return []
    return [
        f"line 3 must be {expected} to match the {rfc.lifecycle}/ folder (found {_found(value)})"
    ]


def _header_rules(rfc: RfcFile) -> list[str]:
    problems = [
        *_must_be_empty(rfc.lines, 2),
        *_status_rule(rfc),
        *_must_be_empty(rfc.lines, 4),
    ]
    for number, text in enumerate(rfc.lines, start=1):
        if number != _STATUS_LINE and text.startswith("Status:"):
            problems.append(f'line {number}: only line 3 may start with "Status:"')
    return problems


def _section_rules(rfc: RfcFile) -> list[str]:
    headings = [
        (number, text.rstrip())
        for number, text in enumerate(rfc.lines, start=1)
        if text.startswith("## ")
    ]
    problems: list[str] = []
    if not headings:
        problems.append('first section must be "## Problem" (found no "## " section)')
    elif headings[0][1] != "## Problem":
        number, text = headings[0]
        problems.append(f'first section must be "## Problem" (found "{text}" on line {number})')
    present = {text for _, text in headings}
    problems.extend(
        f'missing section "## {section}" (required in {rfc.lifecycle}/)'
        for section in REQUIRED_SECTIONS[rfc.lifecycle]
        if f"## {section}" not in present
    )
    if rfc.lifecycle == "implemented":
        problems.extend(
            f'line {number}: proposal-era section "{text}" is not allowed in implemented/ '
            "(describe what shipped under Decision and Consequences)"
            for number, text in headings
            if _PROPOSAL_ERA.match(text)
        )
    return problems


def check_format(rfc: RfcFile) -> list[Violation]:
    """Every in-file format violation of one walked RFC, header rules first."""
    return [
        Violation(path=rfc.path, rule=rule) for rule in _header_rules(rfc) + _section_rules(rfc)
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the format gate; returns the exit code (0 clean, 1 violations)."""
    args = gate_parser("Check the in-file format of every RFC under docs/rfc.").parse_args(argv)
    tree = walk(args.root)
    violations = list(tree.violations)
    for rfc in tree.rfcs:
        violations.extend(check_format(rfc))
    return report("verify_rfc_format", violations, f"{len(tree.rfcs)} RFC(s) follow the format")


if __name__ == "__main__":
    sys.exit(main())
