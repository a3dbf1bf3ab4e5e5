"""Where session logs live by default: the user's XDG state directory (session layer)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def default_state_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/dsh-lsp``, or ``~/.local/state/dsh-lsp`` when it is unset or relative.

    The XDG spec says a relative ``XDG_STATE_HOME`` is invalid and must be ignored.
    """
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "state"
    return root / "dsh-lsp"


def default_sessions_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The JSONL backend's default directory: ``<state dir>/sessions``."""
    return default_state_dir(environ) / "sessions"


def default_sqlite_path(environ: Mapping[str, str] | None = None) -> Path:
    """The SQLite backend's default database: ``<state dir>/sessions.sqlite3``."""
    return default_state_dir(environ) / "sessions.sqlite3"
