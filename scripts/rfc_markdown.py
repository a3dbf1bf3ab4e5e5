"""CommonMark reading of RFC Markdown: the document tree every RFC gate judges (repository tooling).

The gates judge what a reader sees, not how the source lines happen to start. This module
parses a file with markdown-it-py (CommonMark plus GitHub's pipe tables; a dev-extra
dependency, because the gates run only in CI and in development) and reduces the token
stream to the few things the rules need, each with its 1-based source line:

- ``Document.nodes``: the top-level blocks in order, each a ``Heading`` (ATX or setext, at
  any indentation CommonMark allows, text as rendered) or a ``Block`` (paragraph, list,
  quote, table, code, HTML). HTML blocks that hold only comments are dropped: a reader never
  sees them. Code blocks stay as content but nothing inside them is a heading or a line of
  text.
- ``Document.headings``: every heading, including those nested in quotes or list items.
- ``Document.text_lines``: every rendered line of inline text (paragraphs, headings, table
  cells, quotes, list items), with code spans kept in backticks.
- ``Document.entries``: every table row, list item and paragraph line, with the link targets
  it carries (inline, reference-style, autolink, angle-bracket or raw ``<a href>``).

``parse`` raises nothing for any text: CommonMark has no syntax errors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

try:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token
except ModuleNotFoundError as missing:  # a Python without the dev extra
    raise SystemExit(
        "the RFC gates need markdown-it-py (the dev extra): run them with the project venv, "
        "e.g. .venv/bin/python scripts/verify_rfc_format.py"
    ) from missing

_PARSER = MarkdownIt("commonmark").enable("table")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_HREF = re.compile(r"""\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t])#+[ \t]*$")


@dataclass(frozen=True, slots=True, kw_only=True)
class Heading:
    """A heading as rendered: its level, its text and where its source starts.

    ``canonical`` is true only for the one spelling the contract allows: an ATX heading at
    column 1 with exactly one space after the ``#`` run and no closing ``#`` run. ``nested``
    is true for a heading inside a quote or list item (not a section of the document).
    ``source_text`` is the heading's inline Markdown as written (markers and closing run gone).
    """

    level: int
    text: str
    source_text: str
    line: int
    canonical: bool
    nested: bool

    @property
    def label(self) -> str:
        """The heading written the canonical way, for messages: ``## Problem``."""
        return f"{'#' * self.level} {self.text}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Block:
    """A top-level block a reader sees as content (``kind`` is the markdown-it token type).

    ``text`` is the rendered text of a paragraph and ``""`` for every other kind.
    """

    kind: str
    line: int
    end_line: int
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TextLine:
    """One rendered line of inline text (code spans kept in backticks)."""

    line: int
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """A table row, list item, paragraph line or HTML line, with the link targets it carries.

    ``kind`` is ``"table row"``, ``"list item"``, ``"line"`` or ``"html"``; ``source`` is the
    raw source line at ``line``; ``text`` is what a reader sees of the entry.
    """

    kind: str
    line: int
    source: str
    text: str
    hrefs: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Document:
    """The parsed file: source lines and the reader's view of them (see the module docstring)."""

    lines: tuple[str, ...]
    nodes: tuple[Heading | Block, ...]
    headings: tuple[Heading, ...]
    text_lines: tuple[TextLine, ...]
    entries: tuple[Entry, ...]


def plain(text: str) -> str:
    """``text`` with runs of whitespace collapsed to one space and the ends trimmed."""
    return _SPACE.sub(" ", text).strip()


def _html_hrefs(html: str) -> list[str]:
    return [
        next(group for group in match.groups() if group is not None)
        for match in _HREF.finditer(html)
    ]


@dataclass(slots=True)
class _Inline:
    """An inline token rendered as lines of text, each with the hrefs on it."""

    first_line: int
    lines: list[str]
    hrefs: list[list[str]]


def _render_inline(token: Token) -> _Inline:
    start = token.map[0] + 1 if token.map else 0
    lines = [""]
    hrefs: list[list[str]] = [[]]
    for child in token.children or ():
        if child.type in ("softbreak", "hardbreak"):
            lines.append("")
            hrefs.append([])
        elif child.type == "text":
            lines[-1] += child.content
        elif child.type == "code_inline":
            lines[-1] += f"`{child.content}`"
        elif child.type == "image":
            lines[-1] += "".join(grand.content for grand in child.children or ())
        elif child.type == "link_open":
            href = child.attrGet("href")
            if isinstance(href, str):
                hrefs[-1].append(href)
        elif child.type == "html_inline":
            hrefs[-1].extend(_html_hrefs(child.content))
    return _Inline(first_line=start, lines=lines, hrefs=hrefs)


def _is_canonical(token: Token, source: str, level: int) -> bool:
    if token.markup != "#" * level:  # setext headings have "=" or "-" markup
        return False
    prefix = "#" * level + " "
    if not source.startswith(prefix) or source[len(prefix) : len(prefix) + 1] in (" ", "\t", ""):
        return False
    return _CLOSING_HASHES.search(source.rstrip()) is None


def _only_comments(html: str) -> bool:
    return not _COMMENT.sub("", html).strip()


@dataclass(slots=True)
class _Collector:
    """A table row or list item being gathered while the token stream is walked."""

    kind: str
    line: int
    text: list[str]
    hrefs: list[str]


class _Reader:
    """One pass over a markdown-it token stream, filling the ``Document`` fields."""

    def __init__(self, lines: tuple[str, ...]) -> None:
        self.lines = lines
        self.nodes: list[Heading | Block] = []
        self.headings: list[Heading] = []
        self.text_lines: list[TextLine] = []
        self.entries: list[Entry] = []
        self.open: list[_Collector] = []

    def source(self, line: int) -> str:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""

    def heading(self, token: Token, inline: Token) -> None:
        line = token.map[0] + 1 if token.map else 0
        level = int(token.tag[1])
        rendered = _render_inline(inline)
        heading = Heading(
            level=level,
            text=plain(" ".join(rendered.lines)),
            source_text=inline.content,
            line=line,
            canonical=_is_canonical(token, self.source(line), level),
            nested=token.level > 0,
        )
        self.headings.append(heading)
        if not heading.nested:
            self.nodes.append(heading)
        self.inline(rendered, in_paragraph=False)

    def inline(self, rendered: _Inline, *, in_paragraph: bool) -> None:
        for offset, (text, hrefs) in enumerate(zip(rendered.lines, rendered.hrefs, strict=True)):
            line = rendered.first_line + offset
            self.text_lines.append(TextLine(line=line, text=text))
            if in_paragraph:
                self.entries.append(
                    Entry(
                        kind="line",
                        line=line,
                        source=self.source(line),
                        text=text,
                        hrefs=tuple(hrefs),
                    )
                )
        if self.open:
            self.open[-1].text.append(" ".join(rendered.lines))
            self.open[-1].hrefs.extend(href for hrefs in rendered.hrefs for href in hrefs)

    def html(self, token: Token) -> None:
        first = token.map[0] + 1 if token.map else 0
        for offset, text in enumerate(_COMMENT.sub("", token.content).split("\n")):
            hrefs = _html_hrefs(text)
            if hrefs:
                line = first + offset
                self.entries.append(
                    Entry(
                        kind="html",
                        line=line,
                        source=self.source(line),
                        text=plain(_TAG.sub(" ", text)),
                        hrefs=tuple(hrefs),
                    )
                )

    def close(self) -> None:
        done = self.open.pop()
        self.entries.append(
            Entry(
                kind=done.kind,
                line=done.line,
                source=self.source(done.line),
                text=plain(" ".join(done.text)),
                hrefs=tuple(done.hrefs),
            )
        )

    def top_level(self, token: Token, inline: Token | None) -> None:
        if token.type == "html_block" and _only_comments(token.content):
            return
        first, end = (token.map[0] + 1, token.map[1]) if token.map else (0, 0)
        kind = token.type.removesuffix("_open")
        text = plain(" ".join(_render_inline(inline).lines)) if inline is not None else ""
        self.nodes.append(Block(kind=kind, line=first, end_line=end, text=text))

    def read(self, tokens: list[Token]) -> None:
        for position, token in enumerate(tokens):
            following = tokens[position + 1] if position + 1 < len(tokens) else None
            if token.type == "heading_open" and following is not None:
                self.heading(token, following)
                continue
            if token.level == 0 and (token.nesting == 1 or token.type in _LEAF_BLOCKS):
                paragraph_inline = following if token.type == "paragraph_open" else None
                self.top_level(token, paragraph_inline)
            if token.type in ("tr_open", "list_item_open"):
                line = token.map[0] + 1 if token.map else 0
                kind = "table row" if token.type == "tr_open" else "list item"
                self.open.append(_Collector(kind=kind, line=line, text=[], hrefs=[]))
            elif token.type in ("tr_close", "list_item_close"):
                self.close()
            elif token.type == "inline" and tokens[position - 1].type != "heading_open":
                parent = tokens[position - 1].type
                self.inline(_render_inline(token), in_paragraph=parent == "paragraph_open")
            elif token.type == "html_block":
                self.html(token)


_LEAF_BLOCKS = frozenset({"fence", "code_block", "html_block", "hr"})


def parse(text: str) -> Document:
    """Parse Markdown ``text`` into the reader's view of it (see the module docstring)."""
    lines = tuple(text.split("\n"))
    reader = _Reader(lines)
    reader.read(_PARSER.parse(text))
    return Document(
        lines=lines,
        nodes=tuple(reader.nodes),
        headings=tuple(reader.headings),
        text_lines=tuple(reader.text_lines),
        entries=tuple(reader.entries),
    )
