"""Prefix rules never approve a compound command (properties) and match by whole words."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.shell import is_compound, prefix_allows, suggest_prefix, valid_prefix

SEPARATORS = (";", "&&", "||", "|", "&", "$(", "`", ">", ">>", "<", "2>&1", "\n", "\r\n", "<(")
WORD = st.text(
    alphabet=st.characters(categories=("L", "N"), include_characters="-_./=:,+@%"),
    min_size=1,
    max_size=12,
)
SIMPLE = st.lists(WORD, min_size=1, max_size=6).map(shlex.join)


@given(SIMPLE, st.sampled_from(SEPARATORS), st.text(max_size=30), st.text(max_size=10))
def test_a_separator_anywhere_makes_it_compound(
    simple: str, separator: str, after: str, before: str
) -> None:
    command = f"{before}{simple} {separator}{after}"
    assert is_compound(command)
    assert not prefix_allows(simple, command)


@given(SIMPLE, st.sampled_from(SEPARATORS), st.text(max_size=20))
def test_a_quoted_separator_is_compound_too(simple: str, separator: str, after: str) -> None:
    command = f"{simple} {shlex.quote(separator + after)}"
    assert is_compound(command)
    assert not prefix_allows(simple, command)


@given(SIMPLE, st.lists(WORD, max_size=4))
def test_a_simple_command_is_allowed_by_its_own_prefix(prefix: str, extra: list[str]) -> None:
    command = " ".join([prefix, *map(shlex.quote, extra)])
    assert not is_compound(command)
    assert prefix_allows(prefix, command)
    suggested = suggest_prefix(command)
    assert suggested is not None
    assert prefix_allows(suggested, command)


@given(st.text(max_size=60))
def test_a_compound_command_has_no_suggestion(command: str) -> None:
    if is_compound(command):
        assert suggest_prefix(command) is None


@given(st.text(max_size=40), st.text(max_size=60))
def test_an_allowed_command_is_never_compound(prefix: str, command: str) -> None:
    if prefix_allows(prefix, command):
        assert not is_compound(command)
        assert valid_prefix(prefix)


@pytest.mark.parametrize(
    ("prefix", "command", "allowed"),
    [
        ("npm test", "npm test", True),
        ("npm test", "npm test -- --watch", True),
        ("npm test", "npm testing", False),
        ("npm test", "npm", False),
        ("pytest", "pytest -q tests/", True),
        ("pytest", "pytest -q; rm -rf /", False),
        ("pytest", "pytest $(rm -rf /)", False),
        ("pytest", "pytest `rm -rf /`", False),
        ("pytest", "pytest > out.txt", False),
        ("pytest", "pytest\nrm -rf /", False),
        ("git status", "git status && git push", False),
        ("git status", "git status | cat", False),
        ("", "anything", False),
    ],
)
def test_examples(prefix: str, command: str, allowed: bool) -> None:
    assert prefix_allows(prefix, command) is allowed


@pytest.mark.parametrize(
    ("command", "suggestion"),
    [
        ("npm test", "npm test"),
        ("pytest -q tests/", "pytest"),
        ("git status --short", "git status"),
        ("python -m pytest -x", "python -m pytest"),
        ("./run.sh fast", "./run.sh fast"),
        ("ls src/", "ls"),
        ("make && make install", None),
    ],
)
def test_suggestions(command: str, suggestion: str | None) -> None:
    assert suggest_prefix(command) == suggestion
