"""Property test: the format gate's structure verdicts agree with the rendered document tree.

Hypothesis writes RFC bodies from random pieces: headings spelled every way CommonMark allows
(and ways that are not headings at all: fenced, indented code, comments), followed by empty
or filled bodies. The oracle is markdown-it's raw token stream, read here independently of
``rfc_markdown``: whatever the renderer calls a top-level heading is a section, whatever it
renders between headings is content. The gate must report exactly the violations that tree
implies, line for line.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token
from rfc_markdown import parse
from rfc_walker import LIFECYCLES, RfcFile
from verify_rfc_format import REQUIRED_SECTIONS, check_format

from .rfc_fixtures import STATUS

# "atx" twice: the one allowed spelling is drawn more often, so sound files come up too.
SPELLINGS: tuple[str, ...] = (
    "atx",
    "atx",
    "setext",
    "indented",
    "tab",
    "closed",
    "fenced",
    "code",
    "comment",
    "quoted",
)
NAMES = (
    "Problem",
    "Decision",
    "Alternatives considered",
    "Consequences",
    "Proposal",
    "Acceptance criteria",
    "Risks",
    "Plans",
    "Rollout checklist",
    "Background",
)
# The oracle's own judgement of which of NAMES are proposal-stage headings.
PROPOSAL_ERA_NAMES = frozenset({"Proposal", "Acceptance criteria", "Plans", "Rollout checklist"})
BODIES = {
    "empty": "",
    "paragraph": "Some text.",
    "list": "- an item",
    "fence": "```\ncode\n```",
    "comment": "<!-- a note -->",
    "rule": "---",
}


@dataclass(frozen=True)
class Piece:
    spelling: str
    name: str
    level: int
    body: str


def _heading(piece: Piece) -> str:
    hashes = "#" * piece.level
    return {
        "atx": f"{hashes} {piece.name}",
        "setext": f"{piece.name}\n{'-' * len(piece.name)}",
        "indented": f"  {hashes} {piece.name}",
        "tab": f"{hashes}\t{piece.name}",
        "closed": f"{hashes} {piece.name} {hashes}",
        "fenced": f"```\n{hashes} {piece.name}\n```",
        "code": f"    {hashes} {piece.name}",
        "comment": f"<!-- {hashes} {piece.name} -->",
        "quoted": f"> {hashes} {piece.name}",
    }[piece.spelling]


_PIECES = st.builds(
    Piece,
    spelling=st.sampled_from(SPELLINGS),
    name=st.sampled_from(NAMES),
    level=st.sampled_from((2, 2, 3)),
    body=st.sampled_from(tuple(BODIES)),
).map(lambda p: Piece(p.spelling, p.name, 2, p.body) if p.spelling == "setext" else p)


def _render(lifecycle: str, pieces: list[Piece]) -> tuple[str, dict[int, str]]:
    """The RFC text, and the spelling of the piece whose first line is each line number."""
    chunks = [f"# RFC: Generated\n\n{STATUS[lifecycle]}\n"]
    spelled: dict[int, str] = {}
    line = 5
    for piece in pieces:
        spelled[line] = piece.spelling
        chunk = _heading(piece) + (f"\n\n{BODIES[piece.body]}" if BODIES[piece.body] else "")
        chunks.append(chunk + "\n")
        line += chunk.count("\n") + 2
    return "\n".join(chunks), spelled


_COMMENT_ONLY = re.compile(r"^(?:\s*<!--.*?-->\s*)+$", re.DOTALL)


def _oracle(lifecycle: str, text: str, spelled: dict[int, str]) -> Counter[tuple[int | None, str]]:
    """(line, rule name) pairs implied by markdown-it's token stream for ``text``."""
    tokens: list[Token] = MarkdownIt("commonmark").enable("table").parse(text)
    top: list[tuple[str, int, int, str]] = []  # (kind, level, line, text)
    nested_headings: list[tuple[int, int, str]] = []
    for position, token in enumerate(tokens):
        line = token.map[0] + 1 if token.map else 0
        if token.type == "heading_open":
            entry = (int(token.tag[1]), line, tokens[position + 1].content)
            if token.level == 0:
                top.append(("heading", *entry))
            else:
                nested_headings.append(entry)
        elif token.level == 0 and (token.nesting == 1 or token.type in ("fence", "code_block")):
            top.append(("block", 0, line, ""))
        elif token.level == 0 and token.type == "html_block":
            if not _COMMENT_ONLY.match(token.content):
                top.append(("block", 0, line, ""))
        elif token.level == 0 and token.type == "hr":
            top.append(("rule", 0, line, ""))
    body = [node for node in top if node[2] > 3]  # after the title and the Status paragraph
    found: Counter[tuple[int | None, str]] = Counter()
    headings = [node for node in body if node[0] == "heading"]
    for node in body:
        if node[0] == "heading":
            break
        found[(node[2], "problem-first")] += 1
    if not headings or (headings[0][1], headings[0][3]) != (2, "Problem"):
        found[(headings[0][2] if headings else None, "problem-first")] += 1
    seen: set[str] = set()
    for _, level, line, name in headings:
        if level == 2 and name in seen:
            found[(line, "duplicate-section")] += 1
        if level == 2:
            seen.add(name)
        if spelled.get(line) != "atx":
            found[(line, "heading-syntax")] += 1
        if lifecycle == "rejected" and level == 2 and name in ("Decision", "Consequences"):
            found[(line, "rejected-shape")] += 1
    for section in REQUIRED_SECTIONS[lifecycle]:
        if section not in seen:
            found[(None, "required-section")] += 1
    for position, (kind, level, line, _) in enumerate(body):
        if kind != "heading":
            continue
        content = False
        for later_kind, later_level, _, _ in body[position + 1 :]:
            if later_kind == "heading" and later_level <= level:
                break
            content = content or later_kind == "block"
        if not content:
            found[(line, "empty-section")] += 1
    if lifecycle == "implemented":
        for _, _, line, name in [*headings, *((0, *h) for h in nested_headings)]:
            if name in PROPOSAL_ERA_NAMES:
                found[(line, "proposal-era")] += 1
    return found


@settings(max_examples=300, deadline=None)
@given(lifecycle=st.sampled_from(LIFECYCLES), pieces=st.lists(_PIECES, max_size=9))
def test_gate_agrees_with_the_rendered_tree(lifecycle: str, pieces: list[Piece]) -> None:
    text, spelled = _render(lifecycle, pieces)
    rfc = RfcFile(
        path="docs/rfc/x.md",
        lifecycle=lifecycle,
        rfc_class="process",
        name="2026-11-30-x.md",
        date="2026-11-30",
        title="Generated",
        lines=tuple(text.split("\n")),
        doc=parse(text),
    )
    reported = Counter(
        (violation.line, violation.rule.split(":", 1)[0]) for violation in check_format(rfc)
    )
    assert reported == _oracle(lifecycle, text, spelled), text


def test_a_clean_generated_rfc_has_no_violations() -> None:
    pieces = [
        Piece("atx", name, 2, "paragraph") for name in ("Problem", *REQUIRED_SECTIONS["proposed"])
    ]
    text, spelled = _render("proposed", pieces)
    assert _oracle("proposed", text, spelled) == Counter()
