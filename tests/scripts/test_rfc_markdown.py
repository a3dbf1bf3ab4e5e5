"""The shared CommonMark reader: what each gate is told about a file (scripts/rfc_markdown.py)."""

from __future__ import annotations

import pytest
from rfc_markdown import Block, Heading, parse, plain


def _headings(text: str) -> list[tuple[int, str, int, bool, bool]]:
    return [(h.level, h.text, h.line, h.canonical, h.nested) for h in parse(text).headings]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("## Problem", (2, "Problem", 1, True, False)),
        ("### A `code` *word*", (3, "A `code` word", 1, True, False)),
        ("Problem\n-------", (2, "Problem", 1, False, False)),
        ("Title\n=", (1, "Title", 1, False, False)),
        ("   ## Problem", (2, "Problem", 1, False, False)),
        ("##\tProblem", (2, "Problem", 1, False, False)),
        ("##   Problem   ", (2, "Problem", 1, False, False)),
        ("## Problem ###", (2, "Problem", 1, False, False)),
        ("## C#", (2, "C#", 1, True, False)),
        ("## Issue \\#", (2, "Issue #", 1, True, False)),
        ("> ## Quoted", (2, "Quoted", 1, False, True)),
        ("- ## Listed", (2, "Listed", 1, False, True)),
    ],
)
def test_headings_as_rendered(source: str, expected: tuple[int, str, int, bool, bool]) -> None:
    assert _headings(source) == [expected]


@pytest.mark.parametrize(
    "source",
    [
        "```\n## Problem\n```",
        "~~~\n## Problem\n~~~",
        "    ## Problem",
        "<!-- ## Problem -->",
        "<!--\n## Problem\n-->",
        "##Problem",
        "\\## Problem",
        "####### Seven",
    ],
)
def test_not_headings(source: str) -> None:
    assert _headings(source) == []


def test_nodes_keep_order_lines_and_drop_comment_only_html() -> None:
    doc = parse(
        "# RFC: T\n\nStatus: proposed\n\n<!-- note -->\n\n## Problem\n\n- a\n- b\n\n"
        "```\nx\n```\n\n<div>shown</div>\n\n---\n"
    )
    assert [(type(n).__name__, n.line) for n in doc.nodes] == [
        ("Heading", 1),
        ("Block", 3),
        ("Heading", 7),
        ("Block", 9),
        ("Block", 12),
        ("Block", 16),
        ("Block", 18),
    ]
    blocks = [n for n in doc.nodes if isinstance(n, Block)]
    assert [b.kind for b in blocks] == ["paragraph", "bullet_list", "fence", "html_block", "hr"]
    assert blocks[0].text == "Status: proposed"
    heading = doc.nodes[2]
    assert isinstance(heading, Heading)
    assert heading.label == "## Problem"


def test_text_lines_are_rendered_with_source_lines() -> None:
    doc = parse(
        "**Status:** *x*\nsecond `code` line\n\n> quoted\n\n| a | b |\n|---|---|\n| c | d |\n"
    )
    assert [(t.line, t.text) for t in doc.text_lines] == [
        (1, "Status: x"),
        (2, "second `code` line"),
        (4, "quoted"),
        (6, "a"),
        (6, "b"),
        (8, "c"),
        (8, "d"),
    ]


def test_entries_carry_links_in_every_syntax() -> None:
    doc = parse(
        "| [a](one.md) | [b][ref] |\n|---|---|\n"
        "| <https://x.org/two> | <a href='three.md'>c</a> |\n"
        "\n- [d](<four five.md>) 2026\n  - [e](six.md)\n\npara [f](seven.md)\n\n"
        '<p><a href="eight.md">g</a></p>\n\n[ref]: ref.md\n'
    )
    assert [(e.kind, e.line, e.hrefs) for e in doc.entries if e.hrefs] == [
        ("table row", 1, ("one.md", "ref.md")),
        ("table row", 3, ("https://x.org/two", "three.md")),
        ("line", 5, ("four%20five.md",)),
        ("line", 6, ("six.md",)),
        ("list item", 6, ("six.md",)),
        ("list item", 5, ("four%20five.md",)),
        ("line", 8, ("seven.md",)),
        ("html", 10, ("eight.md",)),
    ]


def test_plain_collapses_whitespace() -> None:
    assert plain("  a \t b\n c  ") == "a b c"
