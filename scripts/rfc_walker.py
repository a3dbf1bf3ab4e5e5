"""RFC tree walker: the structural layer every RFC gate shares (repository tooling).

The lifecycle and class of an RFC live in its path, ``docs/rfc/<lifecycle>/<class>/<name>``,
and the date lives in the name. The walker turns that tree into ``RfcFile`` records, each
parsed once into the CommonMark document tree of ``rfc_markdown``, and reports every
structural problem it meets as a ``Violation``: an unknown lifecycle or class folder, a file
in the wrong place, a hidden file or folder, a bad file name, unreadable text, or a first
line that is not ``# RFC: <title>``. The gates (``verify_rfc_format``, ``gen_rfc_index``,
``verify_rfc_classification``) all start from ``walk`` and all report its violations.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path

from rfc_markdown import Document, Heading, parse

LIFECYCLES: tuple[str, ...] = ("proposed", "implemented", "rejected")
CLASSES: tuple[str, ...] = (
    "feature",
    "bug-fix",
    "simplification",
    "architecture",
    "process",
    "testing",
)
RFC_DIR = "docs/rfc"
README_NAME = "README.md"
INDEX_NAME = "INDEX.md"

_ROOT_FILES = frozenset({README_NAME, INDEX_NAME})
_NAME_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$")
_TITLE_RE = re.compile(r"^# RFC: (\S.*?)\s*$")

NAME_RULE = "file-name: must be yyyy-mm-dd-topic.md (topic: a-z0-9 words joined by -)"
TITLE_RULE = 'title-line: line 1 must be "# RFC: <title>"'
HIDDEN_RULE = (
    "hidden-entry: nothing under docs/rfc/ may be hidden (no gate and no index would see it)"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Violation:
    """One broken rule at one repository-relative path (POSIX separators).

    ``rule`` starts with the rule's name (``title-line: ...``); ``line`` is the 1-based source
    line the rule points at, or ``None`` for a rule about the whole file or folder.
    """

    path: str
    rule: str
    line: int | None = None

    def render(self) -> str:
        """The report line: ``<path>:<line>: <rule>``, or ``<path>: <rule>`` without a line."""
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.rule}"


@dataclass(frozen=True, slots=True, kw_only=True)
class RfcFile:
    """A structurally valid RFC: where it sits, what it is called, and its text as lines.

    ``lines`` is the text split on ``"\\n"`` only, so a trailing newline yields a final ``""``;
    ``doc`` is the same text as a reader sees it. ``title`` is line 1's heading text after
    ``RFC: `` (inline Markdown kept as written, since INDEX.md is Markdown too).
    """

    path: str
    lifecycle: str
    rfc_class: str
    name: str
    date: str
    title: str
    lines: tuple[str, ...]
    doc: Document

    @property
    def index_link(self) -> str:
        """The path relative to ``docs/rfc``, as INDEX.md links to it."""
        return f"{self.lifecycle}/{self.rfc_class}/{self.name}"

    def sort_key(self) -> tuple[int, int, str, str]:
        """Lifecycle order, then class order, then date, then file name."""
        return (
            LIFECYCLES.index(self.lifecycle),
            CLASSES.index(self.rfc_class),
            self.date,
            self.name,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class RfcTree:
    """The walk result: the valid RFCs in sort order and every structural violation found."""

    rfcs: tuple[RfcFile, ...]
    violations: tuple[Violation, ...]


def _rel(root: Path, path: Path, *, folder: bool = False) -> str:
    text = path.relative_to(root).as_posix()
    return f"{text}/" if folder else text


def _visible(root: Path, folder: Path, violations: list[Violation]) -> list[Path]:
    """Entries of ``folder`` in name order; each hidden one is reported and left out."""
    entries: list[Path] = []
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name.startswith("."):
            violations.append(
                Violation(path=_rel(root, entry, folder=entry.is_dir()), rule=HIDDEN_RULE)
            )
        else:
            entries.append(entry)
    return entries


def _read_rfc(root: Path, path: Path, lifecycle: str, rfc_class: str) -> RfcFile | Violation:
    rel = _rel(root, path)
    match = _NAME_RE.fullmatch(path.name)
    if match is None:
        return Violation(path=rel, rule=NAME_RULE)
    date = match.group(1)
    try:
        dt.date.fromisoformat(date)
    except ValueError:
        return Violation(
            path=rel, rule=f"file-date: {date} in the file name is not a calendar date"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return Violation(path=rel, rule="not-utf8: the file is not valid UTF-8")
    lines = tuple(text.split("\n"))
    doc = parse(text)
    first = doc.nodes[0] if doc.nodes else None
    if (
        _TITLE_RE.fullmatch(lines[0]) is None
        or not isinstance(first, Heading)
        or (first.level, first.line) != (1, 1)
    ):
        return Violation(path=rel, rule=TITLE_RULE, line=1)
    return RfcFile(
        path=rel,
        lifecycle=lifecycle,
        rfc_class=rfc_class,
        name=path.name,
        date=date,
        title=first.source_text.removeprefix("RFC: "),
        lines=lines,
        doc=doc,
    )


def _walk_class(
    root: Path, folder: Path, lifecycle: str, rfc_class: str
) -> tuple[list[RfcFile], list[Violation]]:
    rfcs: list[RfcFile] = []
    violations: list[Violation] = []
    for entry in _visible(root, folder, violations):
        if entry.is_dir():
            violations.append(
                Violation(
                    path=_rel(root, entry, folder=True),
                    rule=f"nested-folder: RFCs sit directly in {lifecycle}/{rfc_class}/",
                )
            )
            continue
        result = _read_rfc(root, entry, lifecycle, rfc_class)
        if isinstance(result, RfcFile):
            rfcs.append(result)
        else:
            violations.append(result)
    return rfcs, violations


def walk(root: Path) -> RfcTree:
    """Walk ``<root>/docs/rfc`` in lifecycle, class and file-name order.

    ``root`` is the repository root. Raises ``OSError`` only for I/O failures other than
    undecodable text (which is a violation). Nothing is left open.
    """
    rfc_root = root / RFC_DIR
    if not rfc_root.is_dir():
        return RfcTree(
            rfcs=(), violations=(Violation(path=f"{RFC_DIR}/", rule="rfc-folder: missing"),)
        )
    rfcs: list[RfcFile] = []
    violations: list[Violation] = []
    for entry in _visible(root, rfc_root, violations):
        if entry.is_dir() and entry.name not in LIFECYCLES:
            violations.append(
                Violation(
                    path=_rel(root, entry, folder=True),
                    rule="unknown-lifecycle: folder is not a lifecycle "
                    f"(expected one of: {', '.join(LIFECYCLES)})",
                )
            )
        elif not entry.is_dir() and entry.name not in _ROOT_FILES:
            violations.append(
                Violation(
                    path=_rel(root, entry),
                    rule="stray-file: only README.md and INDEX.md sit at the RFC root",
                )
            )
    for lifecycle in LIFECYCLES:
        lc_dir = rfc_root / lifecycle
        if not lc_dir.is_dir():
            continue
        for entry in _visible(root, lc_dir, violations):
            if not entry.is_dir():
                violations.append(
                    Violation(
                        path=_rel(root, entry),
                        rule="misplaced-file: RFCs sit in a class folder: "
                        f"{lifecycle}/<class>/<file>",
                    )
                )
            elif entry.name not in CLASSES:
                violations.append(
                    Violation(
                        path=_rel(root, entry, folder=True),
                        rule="unknown-class: folder is not a class "
                        f"(expected one of: {', '.join(CLASSES)})",
                    )
                )
        for rfc_class in CLASSES:
            class_dir = lc_dir / rfc_class
            if class_dir.is_dir():
                found, problems = _walk_class(root, class_dir, lifecycle, rfc_class)
                rfcs.extend(found)
                violations.extend(problems)
    return RfcTree(rfcs=tuple(rfcs), violations=tuple(violations))
