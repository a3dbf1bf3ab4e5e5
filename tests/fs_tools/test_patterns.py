"""Glob translation and the regex literal prefilter."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.fs_tools import compile_glob, glob_to_regex, required_literal


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("**/*.py", "a/b/c.py", True),
        ("**/*.py", "c.py", True),
        ("*.py", "c.py", True),
        ("*.py", "a/c.py", False),
        ("src/**", "src/a/b", True),
        ("src/**", "src", False),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/x/y/b", True),
        ("a/**/b", "ab", False),
        ("*.{ts,tsx}", "x.tsx", True),
        ("*.{ts,tsx}", "x.js", False),
        ("{a,b{c,d}}", "bd", True),
        ("?.txt", "a.txt", True),
        ("?.txt", "/.txt", False),
        ("[a-c]x", "bx", True),
        ("[!a]x", "ax", False),
        ("[!a]x", "/x", False),
        ("[]]", "]", True),
        (".*", ".env", True),
        ("\\*.md", "*.md", True),
        ("\\*.md", "a.md", False),
        ("a+b(c).txt", "a+b(c).txt", True),
    ],
)
def test_glob_matching(pattern: str, path: str, matches: bool) -> None:
    assert bool(compile_glob(pattern).match(path)) is matches


@pytest.mark.parametrize("pattern", ["[abc", "{a,b", "a}"])
def test_malformed_globs(pattern: str) -> None:
    with pytest.raises(ValueError, match="unbalanced"):
        glob_to_regex(pattern)


def test_braces_can_be_literal() -> None:
    assert re.fullmatch(glob_to_regex("{a,b}", braces=False), "{a,b}")


@pytest.mark.parametrize(
    ("pattern", "literal"),
    [
        ("needle", "needle"),
        (r"def \w+_handler\(", "_handler("),
        ("foo|bar", None),
        ("(a|b)cdef", "cdef"),
        ("colou?r", "colo"),
        ("ab*c", "a"),
        ("x[abc]yz", "yz"),
        (r"\bword\b", "word"),
        ("(?i)word", None),
        ("a\nb", "a"),
        ("^$", None),
        ("", None),
    ],
)
def test_required_literals(pattern: str, literal: str | None) -> None:
    assert required_literal(pattern) == literal


ATOMS = [
    "a",
    "b",
    "ab",
    ".",
    r"\.",
    "x*",
    "y?",
    "z+",
    "[ab]",
    "(a|b)",
    r"\w",
    "|",
    "^",
    "$",
    "(ab)*",
    "c{2}",
    r"\(",
    "-",
    " ",
]


@given(atoms=st.lists(st.sampled_from(ATOMS), max_size=6), data=st.data())
def test_every_match_contains_the_literal(atoms: list[str], data: st.DataObject) -> None:
    pattern = "".join(atoms)
    try:
        regex = re.compile(pattern)
    except re.error:
        return
    literal = required_literal(pattern)
    text = data.draw(st.from_regex(regex))
    if literal is not None:
        assert literal in text, (pattern, literal, text)
