"""Guards and edits: the conditions a write or edit must meet, and literal edits (fs_tools).

A ``WriteGuard`` is checked by the provider inside the target's critical section: no guard
writes unconditionally, ``CreateIfAbsent`` refuses to replace an existing file
(``FS_NOT_OBSERVED``), ``ReplaceIfVersion`` refuses when the file is missing or its version
differs (``FS_STALE_VERSION``). ``ExpectVersion`` is the same compare-and-swap for edits, checked
before any literal matching. ``LiteralEdit`` is one exact-text replacement.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateIfAbsent:
    """Write only if nothing exists at the target yet."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplaceIfVersion:
    """Write only if the target exists with exactly this version."""

    version: str


WriteGuard = CreateIfAbsent | ReplaceIfVersion
"""The condition attached to a write (``None`` means unconditional)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ExpectVersion:
    """Edit only if the target's current version is exactly this one."""

    version: str


@dataclass(frozen=True, slots=True, kw_only=True)
class LiteralEdit:
    """Replace ``old_string`` with ``new_string`` literally (no regex, no wildcards).

    ``old_string`` must occur exactly once unless ``replace_all``; line endings in both strings
    are normalized to ``\\n`` before matching, like the file's text.
    """

    old_string: str
    new_string: str
    replace_all: bool = False
