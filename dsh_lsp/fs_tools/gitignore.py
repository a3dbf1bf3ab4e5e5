"""``.gitignore`` rules: parsing and matching, with git's precedence (fs_tools layer).

Pure. ``parse_gitignore`` turns one file's text into ``IgnoreRules``; ``IgnoreStack`` chains
the rules of nested directories so the deepest ``.gitignore`` that has an opinion decides, and
within one file the last matching rule wins. Supported syntax: ``#`` comments, blank lines,
trailing spaces (unless escaped), ``!`` negation, ``/`` anchoring (leading or inner slash),
trailing ``/`` for directories only, ``*``, ``?``, ``[...]``, ``**`` and ``\\`` escapes. As in
git, a file inside an ignored directory cannot be re-included: walkers simply never descend
into ignored directories. Paths are relative, ``/``-separated.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .globpattern import glob_to_regex


@dataclass(frozen=True, slots=True, kw_only=True)
class IgnoreRule:
    """One rule: the compiled pattern, whether it re-includes, whether it targets dirs only."""

    pattern: re.Pattern[str]
    negated: bool
    dir_only: bool


class IgnoreRules:
    """The rules of one ``.gitignore`` file, relative to the directory holding it."""

    __slots__ = ("_dir_any", "_file_any", "_rules")

    def __init__(self, rules: tuple[IgnoreRule, ...]) -> None:
        self._rules = rules
        self._file_any: re.Pattern[str] | None = None
        self._dir_any: re.Pattern[str] | None = None
        if not any(rule.negated for rule in rules):
            # Without negations "ignored" is "any rule matches": one combined regex each.
            self._file_any = _union(rule for rule in rules if not rule.dir_only)
            self._dir_any = _union(iter(rules))

    @property
    def rules(self) -> tuple[IgnoreRule, ...]:
        """The parsed rules, in file order."""
        return self._rules

    def decide(self, relative: str, *, is_dir: bool) -> bool | None:
        """True (ignored), False (re-included by ``!``) or None (no rule matches)."""
        fast = self._dir_any if is_dir else self._file_any
        if fast is not None or not self._rules:
            return True if fast is not None and fast.match(relative) else None
        for rule in reversed(self._rules):
            if rule.dir_only and not is_dir:
                continue
            if rule.pattern.match(relative):
                return not rule.negated
        return None


def parse_gitignore(text: str) -> IgnoreRules:
    """Parse a ``.gitignore`` file's text. Lines whose pattern is malformed are skipped."""
    rules: list[IgnoreRule] = []
    for raw in text.split("\n"):
        rule = _parse_line(raw.removesuffix("\r"))
        if rule is not None:
            rules.append(rule)
    return IgnoreRules(tuple(rules))


@dataclass(frozen=True, slots=True)
class IgnoreStack:
    """The rules in force in one directory: its own ``.gitignore`` over its parents'.

    ``base`` is the absolute directory (ending in ``/``) the ``rules`` are relative to.
    """

    base: str
    rules: IgnoreRules
    parent: IgnoreStack | None = None

    def is_ignored(self, path: str, *, is_dir: bool) -> bool:
        """Whether the absolute ``path`` (below every level's base) is ignored."""
        level: IgnoreStack | None = self
        while level is not None:
            if path.startswith(level.base):
                decision = level.rules.decide(path[len(level.base) :], is_dir=is_dir)
                if decision is not None:
                    return decision
            level = level.parent
        return False


def _parse_line(line: str) -> IgnoreRule | None:
    if not line or line.startswith("#"):
        return None
    line = _strip_trailing_spaces(line)
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    line = line.removeprefix("/")
    try:
        source = glob_to_regex(line, braces=False)
    except ValueError:
        return None
    if not anchored:
        source = "(?:[^/]*/)*" + source
    return IgnoreRule(pattern=re.compile(f"(?s:{source})\\Z"), negated=negated, dir_only=dir_only)


def _strip_trailing_spaces(line: str) -> str:
    stripped = line.rstrip(" ")
    if stripped != line and stripped.endswith("\\"):
        return stripped + " "  # an escaped space stays (the glob translator unescapes it)
    return stripped


def _union(rules: Iterable[IgnoreRule]) -> re.Pattern[str] | None:
    sources = [rule.pattern.pattern for rule in rules]
    return re.compile("|".join(f"(?:{source})" for source in sources)) if sources else None
