"""Glob patterns compiled to regular expressions over ``/``-separated relative paths (fs_tools).

Pure. The one translator behind the ``glob`` tool, ``grep``'s file filter and ``.gitignore``
rules. Syntax: ``*`` (any run of characters within one path segment), ``?`` (one character but
``/``), ``[abc]`` / ``[a-z]`` / ``[!abc]`` (one character from, or not from, a set; never ``/``),
``{a,b}`` (alternatives, nestable), ``**`` as a whole segment (zero or more segments), and
``\\`` escaping the next character. ``*`` also matches names starting with a dot.
"""

from __future__ import annotations

import re
from functools import lru_cache


def glob_to_regex(pattern: str, *, braces: bool = True) -> str:
    """The regular-expression source (without anchors) matching what ``pattern`` matches.

    ``braces=False`` treats ``{``, ``}`` and ``,`` as literals (``.gitignore`` syntax).
    Raises ``ValueError`` for an unbalanced ``[`` (or ``{``/``}`` with braces on).
    """
    out: list[str] = []
    _translate(pattern, 0, out, stop=None, braces=braces)
    return "".join(out)


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled to match a whole relative path. Raises ``ValueError`` (see above)."""
    return re.compile(f"(?s:{glob_to_regex(pattern)})\\Z")


def _translate(
    pattern: str, index: int, out: list[str], *, stop: str | None, braces: bool = True
) -> int:
    """Translate from ``index`` until the end or an unnested ``stop`` character; its index."""
    length = len(pattern)
    while index < length:
        char = pattern[index]
        if stop is not None and char in stop:
            return index
        if char == "*":
            index = _star(pattern, index, out)
            continue
        if char == "?":
            out.append("[^/]")
        elif char == "[":
            index = _char_class(pattern, index, out)
            continue
        elif char == "{" and braces:
            index = _braces(pattern, index, out)
            continue
        elif char == "}" and braces:
            raise ValueError(f"unbalanced '}}' in glob {pattern!r}")
        elif char == "\\" and index + 1 < length:
            index += 1
            out.append(re.escape(pattern[index]))
        else:
            out.append(re.escape(char))
        index += 1
    if stop is not None:
        raise ValueError(f"unbalanced '{{' in glob {pattern!r}")
    return index


def _star(pattern: str, index: int, out: list[str]) -> int:
    end = index
    while end < len(pattern) and pattern[end] == "*":
        end += 1
    starts_segment = index == 0 or pattern[index - 1] == "/"
    ends_segment = end == len(pattern) or pattern[end] == "/"
    if end - index >= 2 and starts_segment and ends_segment:
        if end < len(pattern):  # "**/" : zero or more whole segments
            out.append("(?:[^/]*/)*")
            return end + 1
        if index > 0:  # "/**" at the end: everything below (the "/" is already emitted)
            out.append(".*")
            return end
        out.append(".*")  # a lone "**"
        return end
    out.append("[^/]*")
    return end


def _char_class(pattern: str, index: int, out: list[str]) -> int:
    end = index + 1
    if end < len(pattern) and pattern[end] in "!^":
        end += 1
    if end < len(pattern) and pattern[end] == "]":
        end += 1
    while end < len(pattern) and pattern[end] != "]":
        end += 1
    if end >= len(pattern):
        raise ValueError(f"unbalanced '[' in glob {pattern!r}")
    body = pattern[index + 1 : end]
    negated = body[:1] in ("!", "^")
    if negated:
        body = body[1:]
    body = body.replace("\\", "\\\\").replace("[", "\\[")
    out.append(f"[^/{body}]" if negated else f"(?!/)[{body}]")
    return end + 1


def _braces(pattern: str, index: int, out: list[str]) -> int:
    alternatives: list[str] = []
    index += 1
    while True:
        branch: list[str] = []
        index = _translate(pattern, index, branch, stop=",}")
        alternatives.append("".join(branch))
        if pattern[index] == "}":
            out.append("(?:" + "|".join(alternatives) + ")")
            return index + 1
        index += 1
