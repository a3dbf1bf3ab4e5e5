"""ShellAllowList: command prefixes the user approved for good, per workspace (server layer).

When the user answers a shell question with "always allow", the prefix they confirmed
(``npm test``) is remembered for the session's workspace in one JSON file next to the
session logs (``shell-allow.json``: ``{"version": 1, "workspaces": {root: [prefix, …]}}``),
so the next session in that folder does not ask again. ``dsh/shell/allowedPrefixes`` shows
the list (with the ``dsh.permissions.shellAllow`` setting's prefixes), and
``dsh/shell/revokePrefix`` takes one off. Only simple commands are ever approved by a prefix
(``dsh_lsp.shell.prefix_allows``). The file is rewritten atomically; an unreadable one is
logged and treated as empty (it is never a reason to run a command).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Final

from dsh_lsp.session import default_state_dir
from dsh_lsp.shell import valid_prefix

_log = logging.getLogger(__name__)

FILE_NAME: Final = "shell-allow.json"
VERSION: Final = 1


class ShellAllowList:
    """See the module docstring. ``path`` None keeps the list in memory only."""

    __slots__ = ("_loaded", "_path", "_workspaces")

    def __init__(self, path: Path | None) -> None:
        self._path = path
        self._workspaces: dict[str, list[str]] = {}
        self._loaded = False

    def prefixes(self, workspace: str | None) -> tuple[str, ...]:
        """The remembered prefixes of ``workspace`` (none for None)."""
        if workspace is None:
            return ()
        self._load()
        return tuple(self._workspaces.get(_key(workspace), ()))

    def add(self, workspace: str, prefix: str) -> bool:
        """Remember ``prefix`` for ``workspace``; False when it is not a valid rule or was
        there already. Raises OSError when the file cannot be written."""
        if not valid_prefix(prefix):
            return False
        self._load()
        entries = self._workspaces.setdefault(_key(workspace), [])
        if prefix in entries:
            return False
        entries.append(prefix)
        self._save()
        return True

    def revoke(self, workspace: str, prefix: str) -> bool:
        """Forget ``prefix`` for ``workspace``; False when it was not remembered.
        Raises OSError when the file cannot be written."""
        self._load()
        entries = self._workspaces.get(_key(workspace), [])
        if prefix not in entries:
            return False
        entries.remove(prefix)
        self._save()
        return True

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        if self._path is None or not self._path.exists():
            return
        try:
            raw = json.loads(self._path.read_text(encoding="utf-8"))
            workspaces = raw["workspaces"] if raw.get("version") == VERSION else {}
            self._workspaces = {
                str(root): [p for p in prefixes if isinstance(p, str) and valid_prefix(p)]
                for root, prefixes in workspaces.items()
                if isinstance(prefixes, list)
            }
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            _log.warning("ignored an unreadable %s", self._path)

    def _save(self) -> None:
        if self._path is None:
            return
        self._path.parent.mkdir(parents=True, exist_ok=True)
        body = json.dumps({"version": VERSION, "workspaces": self._workspaces}, indent=1)
        fd, temp = tempfile.mkstemp(dir=self._path.parent, prefix=".shell-allow-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(body)
            os.replace(temp, self._path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise


def shell_allow_path(session_dir: str | None) -> Path:
    """Where the list lives: next to the session directory when one is set (its parent),
    else in the state directory (``$XDG_STATE_HOME/dsh-lsp``)."""
    base = default_state_dir() if session_dir is None else Path(session_dir).parent
    return base / FILE_NAME


def _key(workspace: str) -> str:
    return os.path.normpath(workspace)
