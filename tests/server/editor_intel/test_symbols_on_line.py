"""Line + symbol → column: the resolution the position tools send, checked against an
independent count of code units in every encoding (properties over arbitrary text, astral
characters included), and the diffing of changed lines behind post-edit diagnostics."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.server.buffers import PositionEncoding
from dsh_lsp.server.editor_intel import (
    DocumentProblems,
    Problem,
    Spot,
    changed_lines,
    new_problems,
    symbol_column,
    symbol_index,
)

CODECS = {"utf-8": ("utf-8", 1), "utf-16": ("utf-16-le", 2), "utf-32": ("utf-32-le", 4)}

_text = st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=30)
_identifier = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,11}", fullmatch=True)


def _units(text: str, encoding: str) -> int:
    codec, width = CODECS[encoding]
    return len(text.encode(codec)) // width


_encodings: st.SearchStrategy[PositionEncoding] = st.sampled_from(["utf-8", "utf-16", "utf-32"])


@given(prefix=_text, symbol=_identifier, suffix=_text, encoding=_encodings)
def test_the_column_counts_the_code_units_before_the_symbol(
    prefix: str, symbol: str, suffix: str, encoding: PositionEncoding
) -> None:
    line = f"{prefix} {symbol} {suffix}"
    index = symbol_index(line, symbol)
    assert index is not None
    assert line[index:].startswith(symbol)
    assert index <= len(prefix) + 1  # never later than the occurrence we put there
    assert symbol_column(line, symbol, encoding) == _units(line[:index], encoding)


@given(line=_text, symbol=_identifier)
def test_a_symbol_that_is_not_on_the_line_is_none(line: str, symbol: str) -> None:
    if symbol not in line:
        assert symbol_column(line, symbol, "utf-16") is None


def test_a_whole_word_wins_over_a_longer_name() -> None:
    assert symbol_index("foobar = foo()", "foo") == 9
    assert symbol_index("foobar = 1", "foo") == 0
    assert symbol_index("x = os.path.join(a)", "os.path.join") == 12
    assert symbol_index("run() and more", "run()") == 0


def test_emoji_count_two_utf16_units() -> None:
    line = 'x = "\U0001f600"; foo()'
    assert symbol_column(line, "foo", "utf-16") == line.index("foo") + 1
    assert symbol_column(line, "foo", "utf-32") == line.index("foo")
    assert symbol_column(line, "foo", "utf-8") == line.index("foo") + 3


@pytest.mark.parametrize(
    ("before", "after", "old", "new"),
    [
        ("a\nb\nc\n", "a\nB\nc\n", {1}, {1}),
        ("a\nb\nc\n", "a\nb\nx\ny\nc\n", {2}, {2, 3}),
        ("a\r\nb\r\nc\r\n", "a\r\nb2\r\nc\r\n", {1}, {1}),
        ("a\nb\nc\n", "a\nc\n", {1}, {1}),
    ],
)
def test_changed_lines(before: str, after: str, old: set[int], new: set[int]) -> None:
    old_lines, new_lines = changed_lines(before, after)
    assert old <= old_lines
    assert new <= new_lines
    assert 0 not in old_lines


def _problem(line: int, message: str = "bad", severity: int = 1) -> Problem:
    return Problem(
        start=Spot(line=line, character=0),
        end=Spot(line=line, character=1),
        severity=severity,
        message=message,
    )


def _doc(*problems: Problem) -> DocumentProblems:
    return DocumentProblems(uri="file:///x", version=1, complete=True, problems=problems)


def test_new_problems_are_those_of_the_changed_lines_that_were_not_there() -> None:
    earlier = _doc(_problem(1), _problem(5, "elsewhere"))
    now = _doc(_problem(1), _problem(1), _problem(2, "hint", severity=4), _problem(7))
    found = new_problems(earlier, now, {1}, {1, 2})
    assert found == (_problem(1),)  # the second copy is new; hints and other lines are not
    assert new_problems(None, now, {1}, {1, 2}) == (_problem(1), _problem(1))
