"""Display paths: what a person reads for a path is relative to the session's cwd (server).

Tool presenters write titles with the paths the model used, absolute or relative. Every
title the editor shows — tool cards, permission questions, work-done progress, the undo
label of an edit — goes through ``relative_title``, so an absolute path at or below the
session's cwd reads the same everywhere: ``Read src/app.py``, ``Grep 'x' in .``. Paths
outside the cwd, and every path when the cwd is the file-system root, stay as written.
Machine-readable fields (``locations``, diff paths) stay absolute.
"""

from __future__ import annotations

import os
import re
from typing import Final

_ENDS: Final = "'\"`),:;"
"""Characters besides white space that may end a path inside a title."""
_END_CLASS: Final = rf"[\s{re.escape(_ENDS)}]"


def relative_path(path: str, cwd: str | None) -> str:
    """``path`` relative to ``cwd`` when it is absolute and at or below ``cwd``."""
    root = _root(cwd)
    if root is None or not os.path.isabs(path):
        return path
    if path.rstrip("/") == root:
        return "."
    return path[len(root) + 1 :] if path.startswith(root + "/") else path


def relative_title(title: str, cwd: str | None) -> str:
    """``title`` with each absolute path at or below ``cwd`` made relative to it (the cwd
    itself becomes ``.``); everything else is kept."""
    root = _root(cwd)
    if root is None or root not in title:
        return title
    pattern = re.compile(
        rf"(?<![\w.~/-]){re.escape(root)}(?P<slash>/)?(?=$|{_END_CLASS}|(?<=/)[^/])"
    )

    def shorten(found: re.Match[str]) -> str:
        rest = title[found.end() :]
        if found["slash"] and rest and rest[0] not in _ENDS and not rest[0].isspace():
            return ""
        return "."

    return pattern.sub(shorten, title)


def _root(cwd: str | None) -> str | None:
    if not cwd or not os.path.isabs(cwd):
        return None
    root = os.path.normpath(cwd)
    return None if root == "/" else root
