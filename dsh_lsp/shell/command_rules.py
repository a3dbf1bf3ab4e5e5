"""Which commands a remembered prefix may approve (shell layer).

A prefix rule ("always allow `npm test`") approves a command only when the command is
*simple*: one program with its arguments, nothing that chains, pipes, substitutes or
redirects. ``is_compound`` is deliberately conservative: any of ``;``, ``&``, ``|``, ``<``,
``>``, a backtick, ``$(`` or a line break anywhere in the text — inside quotes too — makes a
command compound, so a quoted ``;`` costs one extra question but nothing can smuggle a
second command past a rule. A simple command matches a prefix when its words (``shlex``)
start with the prefix's words, so ``npm test`` approves ``npm test -- --watch`` but not
``npm testing`` or ``npm``.
"""

from __future__ import annotations

import re
import shlex
from typing import Final

COMPOUND: Final = re.compile(r"[;&|<>`\n\r]|\$\(")
"""Anything that chains, pipes, runs in the background, redirects or substitutes."""

_SUBCOMMAND: Final = re.compile(r"^[A-Za-z][\w:.-]*$")
_RUNNERS: Final = frozenset({"python", "python3", "uv", "poetry", "pipenv", "npx", "bunx"})


def is_compound(command: str) -> bool:
    """Whether ``command`` may run more than one program or redirect (see module doc)."""
    return COMPOUND.search(command) is not None


def words(command: str) -> tuple[str, ...] | None:
    """The shell words of a simple command; None when it is compound or does not parse."""
    if is_compound(command):
        return None
    try:
        return tuple(shlex.split(command))
    except ValueError:
        return None


def prefix_allows(prefix: str, command: str) -> bool:
    """Whether the rule ``prefix`` approves ``command``: both simple, the command's words
    starting with the prefix's (an empty prefix approves nothing)."""
    rule = words(prefix)
    cmd = words(command)
    if not rule or cmd is None:
        return False
    return cmd[: len(rule)] == rule


def suggest_prefix(command: str) -> str | None:
    """The prefix an "always allow" proposes for ``command``: the program and, when the next
    word looks like a subcommand (``npm test``, ``git status``, ``python -m pytest``), that
    too. None for a compound command (no rule may cover it)."""
    cmd = words(command)
    if not cmd:
        return None
    chosen = [cmd[0]]
    rest = cmd[1:]
    if cmd[0] in _RUNNERS and len(rest) >= 2 and rest[0] == "-m":
        chosen += rest[:2]
    elif rest and _SUBCOMMAND.match(rest[0]) and "/" not in rest[0]:
        chosen.append(rest[0])
    return shlex.join(chosen)


def valid_prefix(prefix: str) -> bool:
    """Whether ``prefix`` can be a rule: simple and at least one word."""
    return bool(words(prefix))
