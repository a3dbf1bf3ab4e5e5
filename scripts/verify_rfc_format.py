"""RFC format gate: checks the in-file format of every RFC (repository tooling).

Usage: ``.venv/bin/python scripts/verify_rfc_format.py [--root REPO]``. Prints each violation
as ``<path>:<line>: <rule>: <detail>`` (structural walker violations included) and exits 1
when there are any. It only checks; it never rewrites a file. The rules are the contract in
docs/rfc/README.md, judged on the CommonMark document a reader sees (``rfc_markdown``), so a
heading inside a code block is not a heading and a setext or indented heading is one:

- ``header-blank``, ``status-line``: lines 1-4 are ``# RFC: <title>``, blank, the Status
  line for the lifecycle folder (a rejected RFC's reason is words, not a date), blank;
- ``status-once``: no other rendered line states a status, in any spelling;
- ``title-once``: no other level-1 heading;
- ``heading-syntax``: every heading is written ``## Text`` (ATX, column 1, one space);
- ``problem-first``: nothing but the header comes before the first section, ``## Problem``;
- ``required-section``, ``duplicate-section``, ``empty-section``: each lifecycle's sections
  are present, none twice, none without content;
- ``proposal-era``: no heading in ``implemented/``, at any level, means a proposal-stage
  section (``PROPOSAL_ERA_TERMS``, plurals included);
- ``rejected-shape``: a rejected RFC keeps its proposal shape (no Decision or Consequences);
- ``debt-marker``: the retired legacy-format marker appears nowhere in the source;
- ``grandfather-comment``: the pre-format exemption comment is not accepted (see the
  uniform-format RFC's Alternatives considered).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Sequence

from rfc_gate_cli import gate_parser, report
from rfc_markdown import Block, Heading
from rfc_walker import RfcFile, Violation, walk

_STATUS_PATTERNS: dict[str, tuple[re.Pattern[str], str]] = {
    "proposed": (re.compile(r"^Status: proposed$"), '"Status: proposed"'),
    "implemented": (re.compile(r"^Status: implemented$"), '"Status: implemented"'),
    "rejected": (
        re.compile(r"^Status: rejected \u2014 (\S.*)$"),
        '"Status: rejected \u2014 <why>" (em dash U+2014, one space each side)',
    ),
}
REQUIRED_SECTIONS: dict[str, tuple[str, ...]] = {
    "proposed": ("Proposal", "Alternatives considered", "Acceptance criteria", "Risks"),
    "implemented": ("Decision", "Alternatives considered", "Consequences"),
    "rejected": ("Proposal", "Alternatives considered"),
}
# Heading meanings that belong to the proposal stage, singular and lowercase; a heading in
# implemented/ fails when these words appear in it as whole words, in any letter case and
# with a plural "s" (so "## Plans", "### Rollout checklist", "Migration Plan" all fail, while
# "## Planning notes" does not). The one list of synonyms; README.md points here.
PROPOSAL_ERA_TERMS: tuple[str, ...] = (
    "proposal",
    "proposed change",
    "proposed design",
    "plan",
    "rollout",
    "roll out",
    "checklist",
    "acceptance criteria",
    "acceptance criterion",
    "acceptance test",
    "todo",
    "to do",
    "next step",
    "roadmap",
    "milestone",
    "open question",
)
# First words of sections a rejected RFC cannot have: they describe something that shipped.
_SHIPPED_ONLY = frozenset({"decision", "consequence"})
DEBT_MARKER = "XXX: legacy ADR/RFC body format"
GRANDFATHER_COMMENT = "<!-- rfc-format: alternatives-not-recorded (pre-format RFC) -->"
_DEBT_MARKER = re.compile(r"XXX\s*:\s*legacy\s+ADR\s*/\s*RFC\s+body\s+format", re.IGNORECASE)
_GRANDFATHER = re.compile(r"rfc-format\s*:\s*alternatives-not-recorded", re.IGNORECASE)
_STATUS_TEXT = re.compile(r"^\s*status\s*:", re.IGNORECASE)
_STATUS_HEADING = re.compile(r"^status$", re.IGNORECASE)  # "## Status" (with ":" it is a text line)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_WORD = re.compile(r"[^\W\d_]{2,}")
_NON_WORD = re.compile(r"[^a-z0-9]+")
_STATUS_LINE = 3
_HEADER_LINES = 4


def meaning(text: str) -> str:
    """A heading's words for matching: lowercase, punctuation gone, each plural "s" dropped."""
    words = _NON_WORD.sub(" ", text.lower()).split()
    return " ".join(
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words
    )


def proposal_era_term(text: str) -> str | None:
    """The ``PROPOSAL_ERA_TERMS`` entry that heading ``text`` means, or ``None``."""
    padded = f" {meaning(text)} "
    return next((term for term in PROPOSAL_ERA_TERMS if f" {term} " in padded), None)


def _line(lines: Sequence[str], number: int) -> str | None:
    return lines[number - 1] if number <= len(lines) else None


def _found(value: str | None) -> str:
    return "end of file" if value is None else f'"{value}"'


class _Checker:
    """The rules of one RFC, each appending ``Violation``s in source order per rule."""

    def __init__(self, rfc: RfcFile) -> None:
        self.rfc = rfc
        self.doc = rfc.doc
        self.found: list[Violation] = []

    def flag(self, rule: str, line: int | None = None) -> None:
        self.found.append(Violation(path=self.rfc.path, rule=rule, line=line))

    def sections(self) -> list[Heading]:
        """The top-level headings after the title, in order."""
        return [node for node in self.doc.nodes[1:] if isinstance(node, Heading)]

    def header(self) -> None:
        self.blank(2)
        self.status_line()
        self.blank(_HEADER_LINES)

    def blank(self, number: int) -> None:
        value = _line(self.rfc.lines, number)
        if value != "":
            self.flag(f"header-blank: must be empty (found {_found(value)})", number)

    def status_line(self) -> None:
        """Line 3, read as written and as rendered: both must be the lifecycle's status."""
        pattern, expected = _STATUS_PATTERNS[self.rfc.lifecycle]
        value = _line(self.rfc.lines, _STATUS_LINE)
        status = self.status_block()
        rendered = value if status is None else status.text
        match = pattern.fullmatch(value) if value is not None and rendered == value else None
        if match is None:
            self.flag(
                f"status-line: must be {expected} to match the {self.rfc.lifecycle}/ folder "
                f"(found {_found(value)})",
                _STATUS_LINE,
            )
        elif self.rfc.lifecycle == "rejected":
            reason = match.group(1)
            if _DATE.search(reason) or not _WORD.search(reason):
                self.flag(
                    "status-line: the rejection reason must be words, not a date "
                    "(the date lives in the file name)",
                    _STATUS_LINE,
                )

    def status_block(self) -> Block | None:
        """The header's Status paragraph: a one-line paragraph on line 3, if there is one."""
        nodes = self.doc.nodes
        second = nodes[1] if len(nodes) > 1 else None
        if (
            isinstance(second, Block)
            and second.kind == "paragraph"
            and second.line == second.end_line == _STATUS_LINE
        ):
            return second
        return None

    def status_once(self) -> None:
        for text_line in self.doc.text_lines:
            if text_line.line != _STATUS_LINE and _STATUS_TEXT.match(text_line.text):
                self.flag(
                    f'status-once: only line 3 states the status (found "{text_line.text}")',
                    text_line.line,
                )
        for heading in self.doc.headings:
            if _STATUS_HEADING.match(heading.text):
                self.flag(
                    f'status-once: only line 3 states the status (found "{heading.label}")',
                    heading.line,
                )

    def headings(self) -> None:
        for heading in self.doc.headings[1:]:
            if heading.level == 1:
                self.flag(
                    f'title-once: "{heading.label}" is a second level-1 heading; '
                    "sections are ## headings",
                    heading.line,
                )
        for heading in self.doc.headings:
            if not heading.nested and not heading.canonical:
                self.flag(
                    f'heading-syntax: write "{heading.label}" as an ATX heading at column 1 '
                    "with one space after the #s and no closing #s (found "
                    f'"{self.rfc.lines[heading.line - 1]}")',
                    heading.line,
                )

    def opener(self) -> None:
        body = [node for node in self.doc.nodes[1:] if node.line > _STATUS_LINE]
        for node in body:
            if isinstance(node, Heading):
                break
            self.flag(
                'problem-first: content before "## Problem"; the body opens with it', node.line
            )
        sections = self.sections()
        if not sections:
            self.flag('problem-first: first section must be "## Problem" (found no section)')
        elif (sections[0].level, sections[0].text) != (2, "Problem"):
            self.flag(
                f'problem-first: first section must be "## Problem" (found "{sections[0].label}")',
                sections[0].line,
            )

    def section_set(self) -> None:
        seen: dict[str, int] = {}
        for heading in self.sections():
            if heading.level != 2:
                continue
            if heading.text in seen:
                self.flag(
                    f'duplicate-section: "{heading.label}" already opens a section on line '
                    f"{seen[heading.text]}",
                    heading.line,
                )
            else:
                seen[heading.text] = heading.line
        for section in REQUIRED_SECTIONS[self.rfc.lifecycle]:
            if section not in seen:
                self.flag(
                    f'required-section: missing "## {section}" (required in {self.rfc.lifecycle}/)'
                )

    def empty_sections(self) -> None:
        nodes = self.doc.nodes
        for position, node in enumerate(nodes):
            if not isinstance(node, Heading) or node.level < 2:
                continue
            if not any(_content_under(node, nodes[position + 1 :])):
                self.flag(f'empty-section: "{node.label}" has no content', node.line)

    def lifecycle_shape(self) -> None:
        if self.rfc.lifecycle == "implemented":
            for heading in self.doc.headings[1:]:
                term = proposal_era_term(heading.text)
                if term is not None:
                    self.flag(
                        f'proposal-era: "{heading.label}" reads as "{term}", a proposal-stage '
                        "section; implemented/ describes what shipped (Decision, Consequences)",
                        heading.line,
                    )
        if self.rfc.lifecycle == "rejected":
            for heading in self.sections():
                words = meaning(heading.text).split()
                if heading.level == 2 and words and words[0] in _SHIPPED_ONLY:
                    self.flag(
                        f'rejected-shape: "{heading.label}" does not belong in a rejected RFC; '
                        "it keeps the proposal as written and gives the reason on line 3",
                        heading.line,
                    )

    def source_markers(self) -> None:
        for number, text in enumerate(self.rfc.lines, start=1):
            if _DEBT_MARKER.search(text):
                self.flag(
                    "debt-marker: the legacy-format debt marker is retired; "
                    "bring the body to the format instead",
                    number,
                )
            if _GRANDFATHER.search(text):
                self.flag(
                    "grandfather-comment: there is no exemption from "
                    '"## Alternatives considered" (see the uniform-format RFC)',
                    number,
                )

    def run(self) -> list[Violation]:
        self.header()
        self.status_once()
        self.headings()
        self.opener()
        self.section_set()
        self.empty_sections()
        self.lifecycle_shape()
        self.source_markers()
        return self.found


def _content_under(heading: Heading, after: Sequence[Heading | Block]) -> Iterator[bool]:
    for node in after:
        if isinstance(node, Heading):
            if node.level <= heading.level:
                return
            continue
        yield node.kind != "hr"


def check_format(rfc: RfcFile) -> list[Violation]:
    """Every in-file format violation of one walked RFC, header rules first."""
    return _Checker(rfc).run()


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
