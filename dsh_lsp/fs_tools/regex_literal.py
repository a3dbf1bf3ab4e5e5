"""A literal every match of a regular expression must contain, for cheap file prefiltering.

Pure and conservative: ``required_literal`` returns a substring that is guaranteed to occur in
any text the pattern matches (case-sensitively), or None when it cannot be sure. Only the top
level of the pattern is read: a top-level ``|``, an inline flag group or anything it does not
understand gives None; groups, classes, escapes like ``\\w`` and quantified characters just end
the current run of literal characters. Grep checks the raw bytes of a file for this literal
before decoding and running the regex, which is where most of its time goes otherwise.
"""

from __future__ import annotations

import re
from typing import Final

_QUANTIFIER: Final = re.compile(r"\{\d*(?:,\d*)?\}")
_META: Final = frozenset(".^$*+?{}[]()|\\")
_QUANTIFIERS: Final = frozenset("*+?{")
_UNSAFE: Final = frozenset("\r\n\ufffd")
"""Characters whose presence in decoded text says nothing about the raw bytes (CRLF
normalization, replacement of invalid UTF-8)."""
_ESCAPED_LITERALS: Final = frozenset(".^$*+?{}[]()|\\/-#&~ \"'!%,:;<=>@`")


def required_literal(pattern: str) -> str | None:
    """The longest run of literal characters every match contains, or None (see module doc)."""
    if "(?" in pattern:
        return None
    runs: list[str] = []
    current: list[str] = []
    depth = 0
    index = 0
    length = len(pattern)
    while index < length:
        char = pattern[index]
        literal: str | None = None
        step = 1
        if char == "\\":
            if index + 1 >= length:
                return None
            escaped = pattern[index + 1]
            step = 2
            if escaped in _ESCAPED_LITERALS:
                literal = escaped
        elif char == "[":
            end = _class_end(pattern, index)
            if end is None:
                return None
            step = end + 1 - index
        elif char == "{":
            quantifier = _QUANTIFIER.match(pattern, index)
            if quantifier is not None:
                step = quantifier.end() - index
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|":
            if depth == 0:
                return None
        elif char not in _META and char not in _UNSAFE:
            literal = char
        following = pattern[index + step] if index + step < length else ""
        if literal is not None and depth == 0 and following not in _QUANTIFIERS:
            current.append(literal)
        else:
            _close(runs, current)
        index += step
    _close(runs, current)
    best = max(runs, key=len, default="")
    return best or None


def _close(runs: list[str], current: list[str]) -> None:
    if current:
        runs.append("".join(current))
        current.clear()


def _class_end(pattern: str, start: int) -> int | None:
    """The index of the ``]`` closing the class opened at ``start``."""
    index = start + 1
    if index < len(pattern) and pattern[index] == "^":
        index += 1
    if index < len(pattern) and pattern[index] == "]":
        index += 1
    while index < len(pattern):
        if pattern[index] == "\\":
            index += 2
            continue
        if pattern[index] == "]":
            return index
        index += 1
    return None
