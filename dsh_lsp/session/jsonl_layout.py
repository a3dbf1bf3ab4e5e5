"""Where a session's JSONL file lives and how its name is spelled (session layer).

A log lives at ``<root>/<bucket>/<encoded id>.jsonl``. The bucket groups sessions by working
directory: ``cwd-`` plus the first 12 hex digits of the SHA-256 of the cwd, or ``_no-cwd``.
The id encoding is injective and filesystem-safe: ``A-Z a-z 0-9 . _ -`` stay as they are,
every other UTF-16 code unit (``~`` included) becomes ``~`` and four hex digits, and a leading
``.`` is escaped too, so no id names a hidden file, ``.`` or ``..`` (the empty id is ``~``).
"""

from __future__ import annotations

import hashlib
import string
from pathlib import Path
from typing import Final

SUFFIX: Final = ".jsonl"
NO_CWD_BUCKET: Final = "_no-cwd"
_SAFE: Final = frozenset(string.ascii_letters + string.digits + "._-")


def bucket_name(cwd: str | None) -> str:
    """The bucket directory name for sessions started in ``cwd``."""
    if cwd is None:
        return NO_CWD_BUCKET
    return "cwd-" + hashlib.sha256(cwd.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def encode_id(session_id: str) -> str:
    """The file-name stem for ``session_id`` (injective; see the module docstring).

    The empty id is spelled ``~``, which no other id produces.
    """
    if not session_id:
        return "~"
    parts: list[str] = []
    for index, char in enumerate(session_id):
        if char in _SAFE and not (index == 0 and char == "."):
            parts.append(char)
            continue
        units = char.encode("utf-16-be", "surrogatepass")
        parts.extend(f"~{units[i] << 8 | units[i + 1]:04x}" for i in range(0, len(units), 2))
    return "".join(parts)


def log_path(root: Path, session_id: str, cwd: str | None) -> Path:
    """The log file of a session with that id and cwd."""
    return root / bucket_name(cwd) / (encode_id(session_id) + SUFFIX)
